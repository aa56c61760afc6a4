//! The MatVec of a recorded circuit against a plain kernel, alternated in
//! one process.
//!
//! `cargo bench -p pce-core --bench matvec -- FILE.pce [--rounds N]`
//!
//! FILE is any PCE file (the parameter cache holds one per circuit once
//! `pce-prover c2`, `demo` or `bench pce` has run; `bench pce --synthetic
//! 32GiB` records a 32 GiB PoRep partition's). The vector stands in for a
//! witness: half zeros, nearly half ones, 2 % random values, as in a PoRep
//! partition's, where 98 % of the aux values are bits. Each round computes
//! A·w, B·w and C·w with the plain kernel (every term added to a zero
//! accumulator, no shortcut for the vector's 0 and 1) and then with the
//! library's [`CsrMatrix::mul_vec_into`], checks that they agree, and
//! prints both times; the medians' ratio is what to read (VMs drift
//! between runs, so only a ratio within one run means anything).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ff::Field;
use pce_core::{CsrMatrix, PrecompiledCircuit, Scalar};
use pce_csr::matrix::{Coefficient, BLOCK_ROWS};
use pce_csr::SplitVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// `out = matrix · x`, every term multiplied or added as it comes.
fn plain_mul_vec(matrix: &CsrMatrix, x: &[Scalar], out: &mut [Scalar]) {
    out.par_chunks_mut(BLOCK_ROWS)
        .enumerate()
        .for_each(|(block, out)| {
            matrix.for_each_row_in_block(block, |row, terms| {
                let mut acc = Scalar::ZERO;
                for (col, coefficient) in terms {
                    let value = &x[col as usize];
                    match coefficient {
                        Coefficient::One => acc += value,
                        Coefficient::MinusOne => acc -= value,
                        Coefficient::Other(c) => acc += *value * c,
                    }
                }
                out[row] = acc;
            })
        });
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse::<usize>().expect("--rounds takes a number"))
        .unwrap_or(5)
        .max(1);
    let Some(path) = args.iter().find(|a| a.ends_with(".pce")).map(PathBuf::from) else {
        eprintln!("usage: cargo bench -p pce-core --bench matvec -- FILE.pce [--rounds N]");
        std::process::exit(2);
    };
    let pce = PrecompiledCircuit::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let matrices = pce.matrices();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let x: Vec<Scalar> = (0..matrices[0].num_cols())
        .map(|_| match rng.gen_range(0..100) {
            0..=49 => Scalar::ZERO,
            50..=97 => Scalar::ONE,
            _ => Scalar::random(&mut rng),
        })
        .collect();
    let rows = matrices[0].num_rows();
    let nnz: usize = matrices.iter().map(|m| m.nnz()).sum();
    println!(
        "{}: {rows} rows, {nnz} non-zeros, {} thread(s), {rounds} rounds",
        path.display(),
        rayon::current_num_threads()
    );
    let (mut plain_out, mut out) = (vec![Scalar::ZERO; rows], vec![Scalar::ONE; rows]);
    let (mut plain_times, mut times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut plain_time = Duration::ZERO;
        let mut time = Duration::ZERO;
        for matrix in matrices {
            let start = Instant::now();
            plain_mul_vec(matrix, &x, &mut plain_out);
            plain_time += start.elapsed();
            let start = Instant::now();
            matrix
                .mul_vec_into(SplitVector::new(&x, &[]), &mut out)
                .expect("the vector fits the matrix");
            time += start.elapsed();
            assert!(plain_out == out, "the two kernels disagree");
        }
        println!(
            "round {round}: plain {:.3} s, mul_vec_into {:.3} s",
            plain_time.as_secs_f64(),
            time.as_secs_f64()
        );
        plain_times.push(plain_time);
        times.push(time);
    }
    let (plain, ours) = (median(&mut plain_times), median(&mut times));
    println!(
        "median: plain {:.3} s, mul_vec_into {:.3} s: {:.2}x",
        plain.as_secs_f64(),
        ours.as_secs_f64(),
        plain.as_secs_f64() / ours.as_secs_f64()
    );
}
