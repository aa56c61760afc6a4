//! Random test parameters for any circuit, in filecoin-proofs' cache.
//!
//! **Insecure, for testing only**: the generator knows the toxic waste.
//! Real sectors must be proven with the published parameters. The files are
//! written under the names filecoin-proofs uses, so both provers (and
//! `verify_seal`) read the same parameters; each is written to a temporary
//! file and renamed into place.

use std::io::Write;

use groth16_prover::setup::generate_random_parameters;
use groth16_prover::verifying_key_bytes_of_parameters;
use pce_core::PrecompiledCircuit;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use tracing::info;

use crate::cache::CircuitFiles;
use crate::circuits::ProofCircuit;
use crate::C2Error;
use atomic_write::write_atomically;

/// Generates random parameters for `pce`'s circuit from `seed` and writes
/// `files.params` and `files.vk`.
pub fn generate_test_params(
    files: &CircuitFiles,
    pce: &PrecompiledCircuit,
    seed: u64,
) -> Result<(), C2Error> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let params = generate_random_parameters(pce, &mut rng)?;
    if let Some(dir) = files.params.parent() {
        std::fs::create_dir_all(dir)
            .map_err(C2Error::io("creating the parameter cache directory", dir))?;
    }
    // The key last: a run stopped between the two leaves the parameters
    // alone, whose key the next run writes from them
    // ([`ensure_test_params`]), never a key alone, which it must not touch.
    write_atomically(&files.params, |out| {
        params.write(&mut *out)?;
        out.flush()
    })
    .map_err(C2Error::io("writing test parameters", &files.params))?;
    write_atomically(&files.vk, |out| params.vk.write(out))
        .map_err(C2Error::io("writing test parameters", &files.vk))?;
    info!(params = %files.params.display(), "test parameters written (insecure: for testing only)");
    Ok(())
}

/// Makes sure test parameters for `circuit` exist in the cache,
/// generating them (and the PCE) when `force` is set or neither file
/// exists. Returns the circuit's files and whether parameters were
/// generated. Unless `force` is set, files that exist are never replaced:
/// parameters without their key (a generation stopped between the two
/// files, or a download that lost the key) get the key they begin with,
/// since they may be the published ones; a key without its parameters is
/// an error, since a node that only verifies (lotus) keeps the published
/// verifying keys without their parameters, and an insecure key written
/// over one would make it accept forged proofs.
pub fn ensure_test_params(
    circuit: impl Into<ProofCircuit>,
    seed: u64,
    force: bool,
) -> Result<(CircuitFiles, bool), C2Error> {
    let circuit = circuit.into();
    let files = circuit.files()?;
    if !force {
        match (files.params.exists(), files.vk.exists()) {
            (true, true) => return Ok((files, false)),
            (false, true) => {
                return Err(C2Error::PartialParameters {
                    present: files.vk,
                    absent: files.params,
                })
            }
            (true, false) => {
                let key = verifying_key_bytes_of_parameters(&files.params)
                    .map_err(|e| C2Error::Engine(e.into()))?;
                write_atomically(&files.vk, |out| out.write_all(&key))
                    .map_err(C2Error::io("writing the parameters' own key", &files.vk))?;
                info!(vk = %files.vk.display(), "the parameters' verifying key written beside them");
                return Ok((files, false));
            }
            (false, false) => {}
        }
    }
    let pce = circuit.pce()?;
    generate_test_params(&files, &pce, seed)?;
    Ok((files, true))
}
