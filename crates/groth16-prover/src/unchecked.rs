//! Decoding uncompressed points without the curve check.
//!
//! Checking that a point is on the curve costs about three field
//! multiplications on top of the two that bring its coordinates into
//! Montgomery form: decoding the 2 KiB parameter queries took 2.8 s of a
//! 26 s proof with the check. A prover streaming its queries from the file
//! for every proof decodes them with the encoding's flags checked only, and
//! relies on verification instead: every proof is verified before it is
//! returned, and when one fails, the whole file is decoded again with every
//! check ([`crate::srs::SrsFile::check_points`]) so that the error names
//! the corrupt point. The verifying key and resident queries (decoded once
//! for many proofs) keep the full check.

use backend_api::ffi::{pce_fp, pce_fp2};
use backend_api::interop::{g1_affines_as_pce_mut, g2_affines_as_pce_mut};
use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;

/// Why an encoding was refused.
pub const COMPRESSED_OR_SORTED: &str = "not an uncompressed point (flag bits set)";
/// The infinity flag was set.
pub const INFINITY: &str = "the point at infinity";

/// A point from its uncompressed encoding, trusting that it is on the curve.
pub trait Unchecked: Sized {
    /// Decodes `bytes` (the size of the uncompressed encoding), refusing
    /// only bad flags: compressed, sorted, or the point at infinity.
    fn decode_unchecked(bytes: &[u8]) -> Result<Self, &'static str>;
}

/// The top three bits of an encoding: compression, infinity, sort.
fn check_flags(first_byte: u8) -> Result<(), &'static str> {
    match first_byte >> 5 {
        0 => Ok(()),
        0b010 => Err(INFINITY),
        _ => Err(COMPRESSED_OR_SORTED),
    }
}

/// A base-field element from 48 big-endian bytes, in Montgomery form:
/// what `blst_fp_from_bendian` computes, with the bytes read as six words
/// instead of one at a time (decoding the SRS is a measurable share of a
/// proof, and that byte loop was a third of it).
fn fp(bytes: &[u8]) -> pce_fp {
    let bytes: &[u8; 48] = bytes.try_into().expect("48 bytes per coordinate");
    let mut words = [0u64; 6];
    for (word, chunk) in words.iter_mut().rev().zip(bytes.chunks_exact(8)) {
        *word = u64::from_be_bytes(chunk.try_into().expect("8 bytes"));
    }
    let mut out = blst::blst_fp::default();
    // SAFETY: blst reads six words and writes one field element.
    unsafe { blst::blst_fp_from_uint64(&mut out, words.as_ptr()) };
    pce_fp { l: out.l }
}

impl Unchecked for G1Affine {
    fn decode_unchecked(bytes: &[u8]) -> Result<Self, &'static str> {
        check_flags(bytes[0])?;
        let mut point = G1Affine::identity();
        let raw = &mut g1_affines_as_pce_mut(std::slice::from_mut(&mut point))[0];
        raw.x = fp(&bytes[..48]);
        raw.y = fp(&bytes[48..96]);
        Ok(point)
    }
}

impl Unchecked for G2Affine {
    /// Each coordinate is encoded imaginary part first (`c1 ‖ c0`).
    fn decode_unchecked(bytes: &[u8]) -> Result<Self, &'static str> {
        check_flags(bytes[0])?;
        let fp2 = |at: usize| pce_fp2 {
            c0: fp(&bytes[at + 48..at + 96]),
            c1: fp(&bytes[at..at + 48]),
        };
        let mut point = G2Affine::identity();
        let raw = &mut g2_affines_as_pce_mut(std::slice::from_mut(&mut point))[0];
        raw.x = fp2(0);
        raw.y = fp2(96);
        Ok(point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};
    use group::{Group, UncompressedEncoding};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn round_trip<P>(points: &[P])
    where
        P: UncompressedEncoding + Unchecked + PartialEq + std::fmt::Debug,
    {
        for point in points {
            let encoding = point.to_uncompressed();
            let bytes = encoding.as_ref();
            assert_eq!(&P::decode_unchecked(bytes).unwrap(), point);
            for flags in [0x80u8, 0x20, 0xa0] {
                let mut flagged = bytes.to_vec();
                flagged[0] |= flags;
                assert_eq!(
                    P::decode_unchecked(&flagged).err(),
                    Some(COMPRESSED_OR_SORTED)
                );
            }
            let mut infinity = bytes.to_vec();
            infinity[0] |= 0x40;
            assert_eq!(P::decode_unchecked(&infinity).err(), Some(INFINITY));
        }
    }

    /// The word-wise read computes what blst's byte-wise one does, also on
    /// words at their extremes and values at or above the modulus.
    #[test]
    fn fp_matches_blst_from_bendian() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut inputs: Vec<[u8; 48]> = vec![[0; 48], [0xff; 48], [0x1a; 48]];
        inputs.extend((0..200).map(|_| {
            let mut bytes = [0u8; 48];
            rand::RngCore::fill_bytes(&mut rng, &mut bytes);
            bytes
        }));
        for bytes in inputs {
            let mut expected = blst::blst_fp::default();
            // SAFETY: blst reads 48 bytes and writes one field element.
            unsafe { blst::blst_fp_from_bendian(&mut expected, bytes.as_ptr()) };
            assert_eq!(fp(&bytes).l, expected.l, "{bytes:02x?}");
        }
    }

    #[test]
    fn decodes_what_blstrs_encodes() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let g1: Vec<G1Affine> = (0..50)
            .map(|_| G1Projective::random(&mut rng).into())
            .collect();
        let g2: Vec<G2Affine> = (0..50)
            .map(|_| G2Projective::random(&mut rng).into())
            .collect();
        round_trip(&g1);
        round_trip(&g2);
    }
}
