//! Fuzzing the vanilla proofs of WindowPoSt, WinningPoSt and SnapDeals.
//!
//! Seeds are real 2 KiB vanilla proofs (bincode, as filecoin-proofs-api
//! returns them to Lotus and Curio). Each case replaces the first vanilla
//! proof of an input with a mutated one and opens the job as the engine
//! does before proving: decoding, arranging into partitions, checking them
//! with filecoin-proofs' vanilla verifiers, deriving public inputs. Errors
//! must name the vanilla proof's source.

use std::path::Path;

use filecoin_proofs::SectorShape2KiB;
use filecoin_prover::compound::ProofKind;
use filecoin_prover::post::{PoStInput, PoStJob};
use filecoin_prover::update::{UpdateInput, UpdateJob};
use filecoin_prover::vanilla::VanillaBytes;
use filecoin_prover::C2Error;
use input_fuzz::{Campaign, CappedAllocator, Mutator};

#[global_allocator]
static ALLOC: CappedAllocator = CappedAllocator;

/// Opens `job` and derives every partition's public inputs. Errors as
/// they are: the campaign requires them to name the mutated proof's
/// source themselves.
fn open<K: ProofKind>(job: K) -> Result<(), String> {
    let statement = job.open().map_err(|e: C2Error| e.to_string())?;
    for k in 0..statement.partitions.len() {
        statement.public_inputs(k).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn with_first(proofs: &[VanillaBytes], bytes: &[u8]) -> Vec<VanillaBytes> {
    let mut proofs = proofs.to_vec();
    proofs[0].bytes = bytes.to_vec();
    proofs
}

fn campaign(
    name: &'static str,
    cases: usize,
    seed: &VanillaBytes,
    target: impl FnMut(&[u8]) -> Result<(), String>,
) {
    let report = Campaign::new(name, cases, Path::new(env!("CARGO_TARGET_TMPDIR")))
        .errors_must_mention(seed.source.display().to_string())
        .run(
            std::slice::from_ref(&seed.bytes),
            |m: &mut Mutator, seed, others| m.bytes(seed, others),
            target,
        );
    eprintln!("{report}");
    report.assert_clean();
}

#[test]
fn vanilla_proof_readers_survive_mutated_proofs() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = filecoin_testkit::kinds::inputs_2kib(dir.path(), 21).unwrap();

    let window = &inputs.window;
    campaign(
        "window-post-vanilla",
        600,
        &window.vanilla_proofs[0],
        |bytes| {
            let input = PoStInput {
                vanilla_proofs: with_first(&window.vanilla_proofs, bytes),
                ..window.clone()
            };
            open(PoStJob::<SectorShape2KiB>::new(&input))?;
            // Curio's single-partition request takes another path.
            let single = PoStInput {
                vanilla_proofs: input.vanilla_proofs[..2].to_vec(),
                partition: Some(0),
                ..input
            };
            open(PoStJob::<SectorShape2KiB>::new(&single))
        },
    );

    let winning = &inputs.winning;
    campaign(
        "winning-post-vanilla",
        600,
        &winning.vanilla_proofs[0],
        |bytes| {
            let input = PoStInput {
                vanilla_proofs: with_first(&winning.vanilla_proofs, bytes),
                ..winning.clone()
            };
            open(PoStJob::<SectorShape2KiB>::new(&input))
        },
    );

    let snap = &inputs.snap;
    campaign("snap-vanilla", 300, &snap.vanilla_proofs[0], |bytes| {
        let input = UpdateInput {
            vanilla_proofs: with_first(&snap.vanilla_proofs, bytes),
            ..snap.clone()
        };
        open(UpdateJob::<SectorShape2KiB>::new(&input))
    });
}
