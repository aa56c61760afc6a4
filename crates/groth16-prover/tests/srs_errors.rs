//! A truncated, corrupt or padded `.params` file is a clear error.

use bellperson::groth16::generate_random_parameters;
use blstrs::Bls12;
use groth16_prover::{read_verifying_key, Srs, SrsError};
use pce_testkit::sha256::Sha256Circuit;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn damaged_parameter_files_are_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let params = generate_random_parameters::<Bls12, _, _>(
        Sha256Circuit {
            preimage: vec![1, 2, 3],
        },
        &mut rng,
    )
    .unwrap();
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sha.params");

    std::fs::write(&path, &bytes).unwrap();
    let srs = Srs::read(&path).unwrap();
    assert_eq!(srs.h.len(), params.h.len());
    assert_eq!(srs.b_g2.len(), params.b_g2.len());

    for len in [0, 50, 96 * 3, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let err = Srs::read(&path).err().expect("truncated file accepted");
        assert!(
            matches!(err, SrsError::Truncated { .. }),
            "length {len}: {err}"
        );
        assert!(err.to_string().contains("sha.params"), "{err}");
    }

    let mut corrupt = bytes.clone();
    corrupt[96 + 20] ^= 0x10; // inside beta_g1's x coordinate
    std::fs::write(&path, &corrupt).unwrap();
    let err = Srs::read(&path).err().expect("corrupt point accepted");
    assert!(
        matches!(
            err,
            SrsError::InvalidPoint {
                section: "vk.beta_g1",
                ..
            }
        ),
        "{err}"
    );

    let mut padded = bytes.clone();
    padded.extend_from_slice(&[0; 7]);
    std::fs::write(&path, &padded).unwrap();
    assert!(matches!(
        Srs::read(&path),
        Err(SrsError::TrailingBytes { extra: 7, .. })
    ));

    let mut vk = Vec::new();
    params.vk.write(&mut vk).unwrap();
    std::fs::write(&path, &vk).unwrap();
    assert_eq!(read_verifying_key(&path).unwrap(), params.vk);
    assert!(matches!(
        read_verifying_key(&dir.path().join("missing.vk")),
        Err(SrsError::Io { .. })
    ));
}

/// Streamed queries are decoded without the curve check; a corrupt point
/// still comes out as an error naming it (found when the proof fails to
/// verify), not as a wrong proof or a blamed backend.
#[test]
fn corrupt_streamed_point_is_named() {
    use backend_api::Backend;
    use ff::Field;
    use groth16_prover::{Bases, ProveError, Prover, SrsFile};
    use pce_core::{synthesize_witness, PrecompiledCircuit};

    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let circuit = Sha256Circuit {
        preimage: vec![4, 5, 6],
    };
    let params = generate_random_parameters::<Bls12, _, _>(circuit.clone(), &mut rng).unwrap();
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    // vk: four G1 and three G2 points... in bellperson's order, then ic.
    let vk_points = 3 * 96 + 3 * 192;
    let h_start = vk_points + 4 + params.vk.ic.len() * 96 + 4;
    bytes[h_start + 96 * 5 + 20] ^= 0x10; // x of h[5]
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sha.params");
    std::fs::write(&path, &bytes).unwrap();

    let backend = Backend::load("cpu").unwrap();
    let device = backend.open(0).unwrap();
    let file = SrsFile::open(&path).unwrap();
    let prover = Prover::new(&device, Bases::Streamed(&file)).unwrap();
    let pce = PrecompiledCircuit::extract(circuit.clone()).unwrap();
    let witness = synthesize_witness(circuit).unwrap();
    let err = prover
        .prove(
            &pce,
            &witness,
            &witness.inputs[1..],
            blstrs::Scalar::ONE,
            blstrs::Scalar::ONE,
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            ProveError::Srs(SrsError::InvalidPoint {
                section: "h",
                index: 5,
                what: "not on the curve",
                ..
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("sha.params"), "{err}");
}

/// A parameter file changed under a prover that has it open: replaced by
/// a rename (how `params gen` and filecoin-proofs' fetcher write), the
/// open file keeps reading the old, whole content; truncated in place, the
/// next query read is an error naming the file, not a panic.
#[test]
fn a_parameter_file_changed_while_open() {
    use groth16_prover::srs::PointCheck;
    use groth16_prover::{G1Query, SrsFile};

    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let params = generate_random_parameters::<Bls12, _, _>(
        Sha256Circuit {
            preimage: vec![7, 8],
        },
        &mut rng,
    )
    .unwrap();
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.params");
    std::fs::write(&path, &bytes).unwrap();

    let open = SrsFile::open(&path).unwrap();
    let replacement = dir.path().join("new.params");
    std::fs::write(&replacement, &bytes[..bytes.len() / 3]).unwrap();
    std::fs::rename(&replacement, &path).unwrap();
    let h = open.g1(G1Query::H, None, PointCheck::Full).unwrap();
    assert_eq!(h, params.h[..], "the open file is the old one");

    let open = SrsFile::open(&dir.path().join("live.params"));
    assert!(open.is_err(), "the truncated replacement itself is refused");
    std::fs::write(&path, &bytes).unwrap();
    let open = SrsFile::open(&path).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(bytes.len() as u64 / 2)
        .unwrap();
    // b_g2 is the last query: in the half that is gone.
    let err = open.b_g2(None, PointCheck::Full).unwrap_err();
    assert!(err.to_string().contains("live.params"), "{err}");
}
