//! The two groups the batch-affine MSM runs on, in blst's layout: what the
//! buckets, their reduction and the blst adder ask of a group.
//!
//! G1's coordinates are in Fp, G2's in Fp2 (three Fp multiplications per
//! Fp2 one), so the saving of batch-affine additions over blst's Jacobian
//! buckets holds in both, with either adder.

use blst::{
    blst_fp, blst_fp2, blst_fp2_add, blst_fp2_cneg, blst_fp2_inverse, blst_fp2_mul, blst_fp2_sqr,
    blst_fp2_sub, blst_fp_add, blst_fp_cneg, blst_fp_inverse, blst_fp_mul, blst_fp_sqr,
    blst_fp_sub, blst_p1, blst_p1_add_or_double, blst_p1_add_or_double_affine, blst_p1_affine,
    blst_p1_double, blst_p1_from_affine, blst_p1_to_affine, blst_p2, blst_p2_add_or_double,
    blst_p2_add_or_double_affine, blst_p2_affine, blst_p2_double, blst_p2_from_affine,
    blst_p2_to_affine,
};

/// A group of BLS12-381 as blst stores it. The field operations take raw
/// pointers, like blst's, so that an output may be one of the inputs.
///
/// # Safety
///
/// An implementation's functions call blst on valid elements and points.
pub(crate) unsafe trait Curve: Send + Sync + 'static {
    /// The coordinates' field: `blst_fp` or `blst_fp2`.
    type Field: Words + Copy + Default + Send + Sync;
    /// An affine point, all zeros at infinity.
    type Affine: Words + Copy + Default + Send + Sync;
    /// A Jacobian point.
    type Jacobian: Copy + Default + Send + Sync;
    /// The widest window worth its buckets with blst's field operations
    /// (see `Adder::WIDEST_WINDOW`); G2's IFMA adder takes G2's too.
    const WIDEST_WINDOW: usize;
    /// What a bucket costs, in additions of the main pass, when the window
    /// width is chosen: its two additions in the reduction (batch-affine,
    /// over buckets side by side, so cheaper than the main pass's) and the
    /// cache misses of a wider bucket array. Fitted to the best measured
    /// windows (docs/benchmarks.md): in G1, with either adder, 12 bits at
    /// 2^16 points, 16 at 2^20, 17 at 2^22 (with [`super::halved`]
    /// scalars); in G2, 15 bits at 2^17 and 2^18, where G1's cost picked 13
    /// and measured slower.
    const BUCKET_COST: usize;

    /// The x coordinate.
    fn x(point: &Self::Affine) -> &Self::Field;
    /// The y coordinate.
    fn y(point: &Self::Affine) -> &Self::Field;
    /// The point `(x, y)`.
    fn point(x: Self::Field, y: Self::Field) -> Self::Affine;

    /// `*out = a + b`.
    ///
    /// # Safety
    /// Valid pointers to field elements; `out` may equal `a` or `b`.
    unsafe fn add(out: *mut Self::Field, a: *const Self::Field, b: *const Self::Field);
    /// `*out = a − b` (as [`Curve::add`]).
    unsafe fn sub(out: *mut Self::Field, a: *const Self::Field, b: *const Self::Field);
    /// `*out = a · b` (as [`Curve::add`]).
    unsafe fn mul(out: *mut Self::Field, a: *const Self::Field, b: *const Self::Field);
    /// `*out = a²` (as [`Curve::add`]).
    unsafe fn sqr(out: *mut Self::Field, a: *const Self::Field);
    /// `*out = −a` (as [`Curve::add`]).
    unsafe fn neg(out: *mut Self::Field, a: *const Self::Field);
    /// `*out = 1/a` (as [`Curve::add`]; `a` not zero).
    unsafe fn inverse(out: *mut Self::Field, a: *const Self::Field);

    /// `sum += point`, any two points.
    fn add_affine_to(sum: &mut Self::Jacobian, point: &Self::Affine);
    /// `sum += other`, any two points.
    fn add_to(sum: &mut Self::Jacobian, other: &Self::Jacobian);
    /// `point = 2·point`.
    fn double(point: &mut Self::Jacobian);
    /// `2·point`, affine (rare: equal points in one bucket).
    fn doubled(point: &Self::Affine) -> Self::Affine;
}

/// blst's types that are plain arrays of `u64`, and so may be read as words.
///
/// # Safety
///
/// An implementation is `repr(C)`, made of `u64`s alone (no padding), and
/// valid for every bit pattern read back as words.
pub(crate) unsafe trait Words: Sized {}

// SAFETY: blst declares each of these `repr(C)` over `[u64; 6]` limbs alone
// (an Fp element, two of them, two coordinates of either).
unsafe impl Words for blst_fp {}
// SAFETY: as above.
unsafe impl Words for blst_fp2 {}
// SAFETY: as above.
unsafe impl Words for blst_p1_affine {}
// SAFETY: as above.
unsafe impl Words for blst_p2_affine {}

/// `value`'s words.
pub(crate) fn words<T: Words>(value: &T) -> &[u64] {
    // SAFETY: `Words` types are `repr(C)` arrays of u64 without padding, so
    // the value is `size_of::<T>() / 8` aligned, initialized words.
    unsafe {
        std::slice::from_raw_parts(
            (value as *const T).cast::<u64>(),
            size_of::<T>() / size_of::<u64>(),
        )
    }
}

/// G1: coordinates in Fp.
pub(crate) enum G1 {}
/// G2: coordinates in Fp2.
pub(crate) enum G2 {}

/// The parts of [`Curve`] that only name blst's functions.
macro_rules! blst_curve {
    ($curve:ident, $field:ident, $affine:ident, $jacobian:ident, $widest:expr, $bucket_cost:expr,
     $add:ident, $sub:ident, $mul:ident, $sqr:ident, $cneg:ident, $inverse:ident,
     $add_affine:ident, $add_or_double:ident, $double:ident, $from_affine:ident, $to_affine:ident) => {
        // SAFETY: every function below calls blst on valid elements and
        // points.
        unsafe impl Curve for $curve {
            type Field = $field;
            type Affine = $affine;
            type Jacobian = $jacobian;
            const WIDEST_WINDOW: usize = $widest;
            const BUCKET_COST: usize = $bucket_cost;

            fn x(point: &$affine) -> &$field {
                &point.x
            }
            fn y(point: &$affine) -> &$field {
                &point.y
            }
            fn point(x: $field, y: $field) -> $affine {
                $affine { x, y }
            }
            unsafe fn add(out: *mut $field, a: *const $field, b: *const $field) {
                $add(out, a, b)
            }
            unsafe fn sub(out: *mut $field, a: *const $field, b: *const $field) {
                $sub(out, a, b)
            }
            unsafe fn mul(out: *mut $field, a: *const $field, b: *const $field) {
                $mul(out, a, b)
            }
            unsafe fn sqr(out: *mut $field, a: *const $field) {
                $sqr(out, a)
            }
            unsafe fn neg(out: *mut $field, a: *const $field) {
                $cneg(out, a, true)
            }
            unsafe fn inverse(out: *mut $field, a: *const $field) {
                $inverse(out, a)
            }
            fn add_affine_to(sum: &mut $jacobian, point: &$affine) {
                // SAFETY: blst adds a valid affine point to a valid Jacobian one.
                unsafe { $add_affine(sum, sum, point) }
            }
            fn add_to(sum: &mut $jacobian, other: &$jacobian) {
                // SAFETY: blst adds two valid points.
                unsafe { $add_or_double(sum, sum, other) }
            }
            fn double(point: &mut $jacobian) {
                // SAFETY: blst doubles a valid point.
                unsafe { $double(point, point) }
            }
            fn doubled(point: &$affine) -> $affine {
                let mut jacobian = $jacobian::default();
                let mut out = $affine::default();
                // SAFETY: blst converts and doubles a valid point.
                unsafe {
                    $from_affine(&mut jacobian, point);
                    $double(&mut jacobian, &jacobian);
                    $to_affine(&mut out, &jacobian);
                }
                out
            }
        }
    };
}

blst_curve!(
    G1,
    blst_fp,
    blst_p1_affine,
    blst_p1,
    17,
    4,
    blst_fp_add,
    blst_fp_sub,
    blst_fp_mul,
    blst_fp_sqr,
    blst_fp_cneg,
    blst_fp_inverse,
    blst_p1_add_or_double_affine,
    blst_p1_add_or_double,
    blst_p1_double,
    blst_p1_from_affine,
    blst_p1_to_affine
);

blst_curve!(
    G2,
    blst_fp2,
    blst_p2_affine,
    blst_p2,
    16,
    1,
    blst_fp2_add,
    blst_fp2_sub,
    blst_fp2_mul,
    blst_fp2_sqr,
    blst_fp2_cneg,
    blst_fp2_inverse,
    blst_p2_add_or_double_affine,
    blst_p2_add_or_double,
    blst_p2_double,
    blst_p2_from_affine,
    blst_p2_to_affine
);
