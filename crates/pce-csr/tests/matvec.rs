//! The compact CSR matrix against a naive dense evaluation, and its file form.

use blstrs::Scalar;
use ff::Field;
use pce_csr::{CsrBuilder, CsrMatrix, FileReader, FileWriter, FormatError, SplitVector};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random matrix as rows of `(column, coefficient)`, coefficients drawn
/// from ±1, zero and a pool larger than the direct code range (so escapes
/// occur), with some rows long enough to need the long-row list.
fn random_rows(seed: u64, num_rows: usize, num_cols: usize) -> Vec<Vec<(u32, Scalar)>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<Scalar> = (0..400).map(|_| Scalar::random(&mut rng)).collect();
    (0..num_rows)
        .map(|_| {
            let len = match rng.gen_range(0..100) {
                0 => rng.gen_range(255..600),
                1..=10 => 0,
                _ => rng.gen_range(1..4),
            };
            (0..len)
                .map(|_| {
                    let col = rng.gen_range(0..num_cols as u32);
                    let coeff = match rng.gen_range(0..10) {
                        0..=3 => Scalar::ONE,
                        4..=5 => -Scalar::ONE,
                        6 => Scalar::ZERO,
                        _ => pool[rng.gen_range(0..pool.len())],
                    };
                    (col, coeff)
                })
                .collect()
        })
        .collect()
}

fn build(rows: &[Vec<(u32, Scalar)>], num_cols: usize) -> CsrMatrix {
    let mut builder = CsrBuilder::new();
    for row in rows {
        builder.push_row(row.iter().map(|(col, coeff)| (*col, coeff)));
    }
    builder.finish(num_cols, |col| col)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn matvec_equals_dense_evaluation(seed in any::<u64>(), num_rows in 0usize..9000, num_cols in 1usize..500, split in 0usize..500) {
        let rows = random_rows(seed, num_rows, num_cols);
        let matrix = build(&rows, num_cols);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        // Bits as well as arbitrary values: the product skips the
        // multiplication for a vector entry of 0 or 1.
        let x: Vec<Scalar> = (0..num_cols)
            .map(|_| match rng.gen_range(0..3) {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => Scalar::random(&mut rng),
            })
            .collect();
        let split = split.min(num_cols);
        let product = matrix.mul_vec(SplitVector::new(&x[..split], &x[split..])).unwrap();
        for (row, value) in rows.iter().zip(&product) {
            let expected: Scalar = row.iter().map(|(col, coeff)| x[*col as usize] * coeff).sum();
            prop_assert_eq!(*value, expected);
        }
        // Into a vector that held other values: every row is written,
        // the empty ones included.
        let mut reused = vec![Scalar::ONE; num_rows];
        matrix.mul_vec_into(SplitVector::new(&x[..split], &x[split..]), &mut reused).unwrap();
        prop_assert_eq!(&reused, &product);
        let y: Vec<Scalar> = (0..num_rows).map(|_| Scalar::random(&mut rng)).collect();
        let transposed = matrix.mul_transpose_vec(&y).unwrap();
        let mut expected = vec![Scalar::ZERO; num_cols];
        for (row, y) in rows.iter().zip(&y) {
            for (col, coeff) in row {
                expected[*col as usize] += *y * coeff;
            }
        }
        prop_assert_eq!(transposed, expected);
        let stored: Vec<Vec<(u32, Scalar)>> = rows
            .iter()
            .map(|row| row.iter().copied().filter(|(_, c)| !bool::from(c.is_zero())).collect())
            .collect();
        prop_assert_eq!(matrix.to_rows(), stored);
    }
}

#[test]
fn escapes_and_long_rows_are_exercised() {
    let rows = random_rows(7, 5000, 300);
    let matrix = build(&rows, 300);
    assert!(
        matrix.table_len() > 253,
        "table of {} values",
        matrix.table_len()
    );
    assert!(matrix.num_escapes() > 0);
    assert!(rows.iter().any(|r| r.len() >= 255));
}

#[test]
fn dimension_mismatch_is_an_error() {
    let matrix = build(&random_rows(3, 10, 5), 5);
    let x = vec![Scalar::ONE; 4];
    assert!(matrix.mul_vec(SplitVector::new(&x, &[])).is_err());
    let mut short = vec![Scalar::ZERO; 9];
    let x = vec![Scalar::ONE; 5];
    assert!(matrix
        .mul_vec_into(SplitVector::new(&x, &[]), &mut short)
        .is_err());
}

#[test]
fn file_round_trip_and_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pce");
    let matrix = build(&random_rows(11, 3000, 700), 700);
    let mut out = FileWriter::create(&path, *b"TESTMTRX", 3).unwrap();
    matrix.write_sections(&mut out, "M").unwrap();
    out.finish().unwrap();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );

    let read = |path: &std::path::Path| -> Result<CsrMatrix, FormatError> {
        let mut input = FileReader::open(path, *b"TESTMTRX", 3)?;
        let m = CsrMatrix::read_sections(&mut input, "M", matrix.num_rows())?;
        input.finish()?;
        Ok(m)
    };
    assert_eq!(read(&path).unwrap(), matrix);

    let bytes = std::fs::read(&path).unwrap();
    let damaged = dir.path().join("damaged.pce");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..200 {
        let mut copy = bytes.clone();
        let at = rng.gen_range(0..copy.len());
        copy[at] ^= 1 << rng.gen_range(0..8);
        std::fs::write(&damaged, &copy).unwrap();
        assert!(
            read(&damaged).is_err(),
            "flipped bit at byte {at} went unnoticed"
        );
    }
    for len in [0, 10, 63, 64, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&damaged, &bytes[..len]).unwrap();
        let err = read(&damaged).unwrap_err();
        assert!(
            matches!(err, FormatError::Truncated { .. }),
            "length {len}: {err}"
        );
    }
    assert!(matches!(
        FileReader::open(&path, *b"TESTMTRX", 4),
        Err(FormatError::Version { .. })
    ));
    assert!(matches!(
        FileReader::open(&path, *b"OTHERKND", 3),
        Err(FormatError::BadMagic { .. })
    ));
}

#[test]
fn abandoned_writer_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pce");
    let mut out = FileWriter::create(&path, *b"TESTMTRX", 1).unwrap();
    out.section("x", &[1u64, 2, 3]).unwrap();
    drop(out);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
