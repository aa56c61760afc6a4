//! A query's MSM scalars selected from a 32 GiB PoRep partition's aux
//! values: [`Density::extend_selected`] against a sequential filter, in
//! one run.
//!
//! `cargo run --release -p pce-core --example select_scalars`
//!
//! 130,169,893 values of 32 bytes (the partition's aux variables), with
//! random densities of 99.7 % (the A query's) and 25.4 % (B's); three
//! rounds each, alternated.

use std::time::Instant;

use pce_core::Density;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

const AUX: usize = 130_169_893;

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let values: Vec<[u64; 4]> =
        large_buffers::collect((0..AUX).into_par_iter().map(|i| [i as u64; 4]));
    println!("{AUX} values, {} thread(s)", rayon::current_num_threads());
    for (query, per_mille) in [("A", 997), ("B", 254)] {
        let density =
            Density::from_indices(AUX, (0..AUX).filter(|_| rng.gen_range(0..1000) < per_mille));
        for round in 0..3 {
            let start = Instant::now();
            let mut filtered: Vec<[u64; 4]> = large_buffers::with_capacity(density.count());
            filtered.extend(
                values
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| density.get(*i))
                    .map(|(_, v)| *v),
            );
            let sequential = start.elapsed();
            let start = Instant::now();
            let mut selected: Vec<[u64; 4]> = large_buffers::with_capacity(density.count());
            density.extend_selected(&values, &mut selected);
            let parallel = start.elapsed();
            assert!(filtered == selected, "the two selections differ");
            println!(
                "{query} ({:.1} % selected), round {round}: sequential filter {:.3} s, extend_selected {:.3} s",
                per_mille as f64 / 10.0,
                sequential.as_secs_f64(),
                parallel.as_secs_f64()
            );
        }
    }
}
