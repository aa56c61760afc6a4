//! Zero-copy views between the ABI types and blst / blstrs types.
//!
//! The ABI's layouts are blst's by design: `pce_fr` is `blst_fr`,
//! `pce_g1_affine` is `blst_p1_affine`, and so on, and blstrs wraps each
//! blst type in a `#[repr(transparent)]` struct. Hosts and plugins built on
//! these crates can therefore hand arrays across without copying; the
//! assertions below fail the build if a layout ever diverges.

use blst::{blst_fr, blst_p1, blst_p1_affine, blst_p2, blst_p2_affine};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};

use crate::ffi::*;

macro_rules! same_layout {
    ($($a:ty => $b:ty),* $(,)?) => {
        $(const _: () = {
            assert!(std::mem::size_of::<$a>() == std::mem::size_of::<$b>());
            assert!(std::mem::align_of::<$a>() == std::mem::align_of::<$b>());
        };)*
    };
}

same_layout!(
    pce_fr => blst_fr,
    pce_fr => Scalar,
    pce_g1_affine => blst_p1_affine,
    pce_g1_affine => G1Affine,
    pce_g2_affine => blst_p2_affine,
    pce_g2_affine => G2Affine,
    pce_g1_projective => blst_p1,
    pce_g1_projective => G1Projective,
    pce_g2_projective => blst_p2,
    pce_g2_projective => G2Projective,
);

/// Defines a safe slice view `$name(&[From]) -> &[To]` (and `_mut`) between
/// two types asserted above to share one layout in which every bit pattern
/// of `From` is a valid `To` as far as the ABI is concerned.
macro_rules! slice_view {
    ($name:ident, $name_mut:ident, $from:ty => $to:ty) => {
        #[doc = concat!("Views `", stringify!($from), "` values as `", stringify!($to), "` values.")]
        pub fn $name(values: &[$from]) -> &[$to] {
            // SAFETY: same size and alignment (asserted), plain-old-data
            // fields in the same order (repr(C) / repr(transparent)).
            unsafe { std::slice::from_raw_parts(values.as_ptr() as *const $to, values.len()) }
        }

        #[doc = concat!("Views `", stringify!($from), "` values as mutable `", stringify!($to), "` values.")]
        pub fn $name_mut(values: &mut [$from]) -> &mut [$to] {
            // SAFETY: as above, with the unique borrow carried over.
            unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut $to, values.len()) }
        }
    };
}

slice_view!(fr_as_scalars, fr_as_scalars_mut, pce_fr => Scalar);
slice_view!(scalars_as_fr, scalars_as_fr_mut, Scalar => pce_fr);
slice_view!(g1_as_blst, g1_as_blst_mut, pce_g1_affine => blst_p1_affine);
slice_view!(g2_as_blst, g2_as_blst_mut, pce_g2_affine => blst_p2_affine);
slice_view!(g1_affines_as_pce, g1_affines_as_pce_mut, G1Affine => pce_g1_affine);
slice_view!(g2_affines_as_pce, g2_affines_as_pce_mut, G2Affine => pce_g2_affine);

/// A blst G1 Jacobian point as the ABI's.
pub fn g1_from_blst(point: blst_p1) -> pce_g1_projective {
    g1_projective_slice(std::slice::from_ref(&point))[0]
}

/// A blst G2 Jacobian point as the ABI's.
pub fn g2_from_blst(point: blst_p2) -> pce_g2_projective {
    g2_projective_slice(std::slice::from_ref(&point))[0]
}

slice_view!(g1_projective_slice, g1_projective_slice_mut, blst_p1 => pce_g1_projective);
slice_view!(g2_projective_slice, g2_projective_slice_mut, blst_p2 => pce_g2_projective);
slice_view!(pce_g1_projectives, pce_g1_projectives_mut, pce_g1_projective => G1Projective);
slice_view!(pce_g2_projectives, pce_g2_projectives_mut, pce_g2_projective => G2Projective);

/// The little-endian bytes of canonical MSM scalars, as blst's MSM takes them.
pub fn scalar_bytes(scalars: &[pce_scalar]) -> &[u8] {
    // SAFETY: `pce_scalar` is four u64 limbs without padding; on a
    // little-endian target (the only kind this crate builds for) its bytes
    // are the little-endian integer.
    unsafe {
        std::slice::from_raw_parts(
            scalars.as_ptr() as *const u8,
            std::mem::size_of_val(scalars),
        )
    }
}

/// The canonical MSM scalar of a field element.
pub fn scalar_of(value: &Scalar) -> pce_scalar {
    let bytes = value.to_bytes_le();
    let mut l = [0u64; 4];
    for (limb, chunk) in l.iter_mut().zip(bytes.chunks_exact(8)) {
        *limb = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    pce_scalar { l }
}

/// The generator of the NTT domain of size `2^log_size` as the ABI defines
/// it: the field's `2^32`-th root of unity squared down, as bellperson's
/// `EvaluationDomain` derives it. Panics unless `1 ≤ log_size ≤ 32`.
pub fn root_of_unity(log_size: u32) -> Scalar {
    use ff::{Field, PrimeField};
    assert!(
        (1..=Scalar::S).contains(&log_size),
        "NTT size 2^{log_size} outside 2^1..=2^{}",
        Scalar::S
    );
    let mut root = Scalar::ROOT_OF_UNITY;
    for _ in log_size..Scalar::S {
        root = root.square();
    }
    root
}
