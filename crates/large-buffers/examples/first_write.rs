//! What a large vector's first write costs when it was filled with zeros
//! before ([`large_buffers::filled`]) and when it comes zeroed from the
//! allocator ([`large_buffers::zeroed`]), alternated in one process.
//!
//! `cargo run --release -p large-buffers --example first_write -- [LOG2]`
//!
//! Three vectors of 2^LOG2 32-byte values (default 27: a, b and c of a
//! 32 GiB PoRep partition, 12 GiB), each made one way, then written once
//! by all threads as a MatVec writes them; four rounds. Times include the
//! allocation and the write; freeing is not timed.

use std::time::{Duration, Instant};

use rayon::prelude::*;

type Value = [u64; 4];

fn write(values: &mut [Value]) {
    values.par_chunks_mut(1 << 16).for_each(|chunk| {
        for (i, value) in chunk.iter_mut().enumerate() {
            *value = [i as u64, 1, 2, 3];
        }
    });
}

fn timed(make: impl Fn(usize) -> Vec<Value>, len: usize) -> Duration {
    let start = Instant::now();
    let mut values = make(len);
    write(&mut values);
    let time = start.elapsed();
    assert_eq!(values[len - 1][1], 1);
    time
}

fn main() {
    let log: u32 = std::env::args()
        .nth(1)
        .map_or(27, |s| s.parse().expect("LOG2 is a number"));
    let len = 3 << log;
    println!(
        "3 x 2^{log} values of 32 bytes ({:.1} GiB), {} thread(s)",
        (len * 32) as f64 / f64::from(1 << 30),
        rayon::current_num_threads()
    );
    for round in 0..4 {
        let filled = timed(|len| large_buffers::filled(len, [0; 4]), len);
        let zeroed = timed(large_buffers::zeroed, len);
        println!(
            "round {round}: filled, then written {:.3} s; zeroed, then written {:.3} s",
            filled.as_secs_f64(),
            zeroed.as_secs_f64()
        );
    }
}
