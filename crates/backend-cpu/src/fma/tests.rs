//! The FMA lane arithmetic against blst's, on random and edge values, and
//! the lazy product's bound for factors up to `2p − 1`: on the emulation
//! everywhere, on the hardware where the CPU has it.
use blst::{blst_fp, blst_fp_add, blst_fp_mul, blst_fp_sub};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The modulus p as six words.
const P: [u64; 6] = crate::FP_MODULUS;

/// `a + b` (or `a − b` with `subtract`) over six words, wrapping.
fn add_words(a: &[u64; 6], b: &[u64; 6], subtract: bool) -> [u64; 6] {
    let step = |x: u64, y: u64| {
        if subtract {
            x.overflowing_sub(y)
        } else {
            x.overflowing_add(y)
        }
    };
    let mut carry = false;
    std::array::from_fn(|k| {
        let (value, first) = step(a[k], b[k]);
        let (value, second) = step(value, carry as u64);
        carry = first || second;
        value
    })
}

/// `a < b` for six little-endian words.
fn below(a: &[u64; 6], b: &[u64; 6]) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

/// Canonical elements: random ones and the edges 0, 1, 2, p − 2, p − 1.
fn elements(rng: &mut ChaCha8Rng, count: usize) -> Vec<[u64; 6]> {
    let one = [1, 0, 0, 0, 0, 0];
    let mut out = vec![[0; 6], one, [2, 0, 0, 0, 0, 0]];
    out.push(add_words(&P, &[2, 0, 0, 0, 0, 0], true));
    out.push(add_words(&P, &one, true));
    while out.len() < count {
        let mut words: [u64; 6] = std::array::from_fn(|_| rng.next_u64());
        words[5] &= (1 << 61) - 1;
        if below(&words, &P) {
            out.push(words);
        }
    }
    out
}

fn blst_op(
    a: &[u64; 6],
    b: &[u64; 6],
    op: unsafe extern "C" fn(*mut blst_fp, *const blst_fp, *const blst_fp),
) -> [u64; 6] {
    let mut out = blst_fp::default();
    // SAFETY: blst reads two valid elements and writes one.
    unsafe { op(&mut out, &blst_fp { l: *a }, &blst_fp { l: *b }) };
    out.l
}

/// `mul`, `add` and `sub` of eight pairs on `$instance` (`hardware` or
/// `emulated`), and `mul_unreduced` of the pairs each plus p where
/// `plus_p` says.
macro_rules! operations {
    ($instance:ident, $a:expr, $b:expr, $plus_p:expr) => {{
        use crate::fma::$instance::{add, mul, mul_unreduced, sub, Lanes, FP};
        crate::fma::$instance::isa::lane_fns!(
            fn operations(
                a: &[[u64; 6]; 8],
                b: &[[u64; 6]; 8],
                plus_p: bool,
            ) -> [[[u64; 6]; 8]; 4] {
                let (x, y) = (Lanes::from_words(a), Lanes::from_words(b));
                let lift =
                    |v: &[[u64; 6]; 8]| Lanes::from_words(&v.map(|e| add_words(&e, &P, false)));
                let (wide_x, wide_y) = if plus_p { (lift(a), lift(b)) } else { (x, y) };
                [
                    mul(&x, &y, &FP).to_words(),
                    add(&x, &y, &FP).to_words(),
                    sub(&x, &y, &FP).to_words(),
                    mul_unreduced(&wide_x, &wide_y, &FP).to_words(),
                ]
            }
        );
        // SAFETY: the caller checked that the instance runs here.
        #[allow(unused_unsafe)]
        unsafe {
            operations($a, $b, $plus_p)
        }
    }};
}

/// Products, sums, differences and lazy products of `$instance` against
/// blst's on random and edge values.
macro_rules! check_against_blst {
    ($instance:ident) => {{
        let check = |x: &[[u64; 6]; 8], y: &[[u64; 6]; 8], plus_p: bool, at: usize| {
            let [product, sum, difference, lazy] = operations!($instance, x, y, plus_p);
            for lane in 0..8 {
                let (u, v) = (&x[lane], &y[lane]);
                let expected = blst_op(u, v, blst_fp_mul);
                assert_eq!(product[lane], expected, "product, lane {lane} at {at}");
                assert_eq!(sum[lane], blst_op(u, v, blst_fp_add), "sum at {at}");
                assert_eq!(
                    difference[lane],
                    blst_op(u, v, blst_fp_sub),
                    "difference at {at}"
                );
                let twice_p = add_words(&P, &P, false);
                assert!(
                    below(&lazy[lane], &twice_p),
                    "lazy product below 2p at {at}"
                );
                let canonical = if below(&lazy[lane], &P) {
                    lazy[lane]
                } else {
                    add_words(&lazy[lane], &P, true)
                };
                assert_eq!(
                    canonical, expected,
                    "lazy product, factors + p = {plus_p}, at {at}"
                );
            }
        };
        let mut rng = ChaCha8Rng::seed_from_u64(48);
        let a = elements(&mut rng, 512);
        let mut b = elements(&mut rng, 512);
        b[5..10].reverse();
        let halves = [false, true].into_iter().cycle();
        for (at, plus_p) in (0..a.len()).step_by(8).zip(halves) {
            let x: [[u64; 6]; 8] = std::array::from_fn(|i| a[at + i]);
            let y: [[u64; 6]; 8] = std::array::from_fn(|i| b[(at + 3 * i) % b.len()]);
            check(&x, &y, plus_p, at);
        }
        // Every pair of the edges (0, 1, 2, p − 2, p − 1), and plus p:
        // (2p − 1)² among them.
        let edges = &a[..5];
        for rotation in 0..5 {
            let x: [[u64; 6]; 8] = std::array::from_fn(|i| edges[i % 5]);
            let y: [[u64; 6]; 8] = std::array::from_fn(|i| edges[(i + rotation) % 5]);
            check(&x, &y, false, rotation);
            check(&x, &y, true, rotation);
        }
    }};
}

#[test]
fn emulated_fp_matches_blst() {
    check_against_blst!(emulated);
}

#[test]
fn fp_matches_blst() {
    if !crate::fma::avx512f::runs_test(module_path!(), "fp_matches_blst") {
        return;
    }
    check_against_blst!(hardware);
}
