//! The field constants the guide and the header state (moduli, Montgomery
//! R and R², the 2^32-th root of unity, the coset generator) are the ones
//! blstrs, and so the host, computes with: each documented line is checked
//! against values derived here from blstrs (and from blst for the base
//! field, which blstrs does not export), so the documents cannot rot.

use std::path::Path;

use blst::blst_fp;
use blstrs::Scalar;
use ff::{Field, PrimeField};

/// The base field element of canonical little-endian limbs `value`.
fn fp(value: [u64; 6]) -> blst_fp {
    let mut out = blst_fp::default();
    // SAFETY: blst reads six limbs and writes one element.
    unsafe { blst::blst_fp_from_uint64(&mut out, value.as_ptr()) };
    out
}

/// The canonical little-endian bytes of a base field element.
fn fp_bytes(value: &blst_fp) -> Vec<u8> {
    let mut limbs = [0u64; 6];
    // SAFETY: blst reads one element and writes six limbs.
    unsafe { blst::blst_uint64_from_fp(limbs.as_mut_ptr(), value) };
    limbs.iter().flat_map(|l| l.to_le_bytes()).collect()
}

/// `x^e` in the base field, by repeated multiplication.
fn fp_pow(x: &blst_fp, e: u32) -> blst_fp {
    let mut out = fp([1, 0, 0, 0, 0, 0]);
    for _ in 0..e {
        let previous = out;
        // SAFETY: blst multiplies two valid elements.
        unsafe { blst::blst_fp_mul(&mut out, &previous, x) };
    }
    out
}

/// Big-endian hex of little-endian bytes, zero padded to their width.
fn hex_le(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}

/// `value + 1` for a little-endian integer of `bytes` (the modulus from
/// its largest element, −1).
fn plus_one(mut bytes: Vec<u8>) -> Vec<u8> {
    for byte in &mut bytes {
        let (sum, carry) = byte.overflowing_add(1);
        *byte = sum;
        if !carry {
            break;
        }
    }
    bytes
}

/// (label as the documents write it, value derived from blstrs).
fn expected() -> Vec<(&'static str, String)> {
    let two_r = Scalar::from(2u64);
    let two_p = fp([2, 0, 0, 0, 0, 0]);
    let minus_one_p = {
        let mut out = blst_fp::default();
        // SAFETY: blst subtracts two valid elements.
        unsafe { blst::blst_fp_sub(&mut out, &blst_fp::default(), &fp([1, 0, 0, 0, 0, 0])) };
        out
    };
    let fr = |x: Scalar| hex_le(&x.to_bytes_le());
    let fp_hex = |x: blst_fp| hex_le(&fp_bytes(&x));
    vec![
        (
            "scalar field modulus r",
            hex_le(&plus_one((-Scalar::ONE).to_bytes_le().to_vec())),
        ),
        (
            "Montgomery R of Fr, 2^256 mod r",
            fr(two_r.pow_vartime([256])),
        ),
        ("R^2 of Fr, 2^512 mod r", fr(two_r.pow_vartime([512]))),
        (
            "base field modulus p",
            hex_le(&plus_one(fp_bytes(&minus_one_p))),
        ),
        (
            "Montgomery R of Fp, 2^384 mod p",
            fp_hex(fp_pow(&two_p, 384)),
        ),
        ("R^2 of Fp, 2^768 mod p", fp_hex(fp_pow(&two_p, 768))),
        ("2^32-th root of unity of Fr", fr(Scalar::ROOT_OF_UNITY)),
        (
            "coset generator g of Fr",
            fr(Scalar::MULTIPLICATIVE_GENERATOR),
        ),
    ]
}

fn check(file: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    for (label, value) in expected() {
        let line = text
            .lines()
            .find(|line| line.contains(label))
            .unwrap_or_else(|| panic!("{}: no line states {label:?}", file.display()));
        assert!(
            line.contains(&value),
            "{}: {label} should be {value}: {line}",
            file.display()
        );
    }
}

#[test]
fn the_guide_states_blstrs_values() {
    check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/backend-abi.md"));
}

#[test]
fn the_header_states_blstrs_values() {
    check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("include/pce_backend.h"));
}

#[test]
fn the_montgomery_r_is_the_limbs_of_one() {
    // R mod r is what a pce_fr holding 1 stores: blst's own limbs of ONE.
    // SAFETY: Scalar is a transparent wrapper of blst_fr, four u64 limbs.
    let limbs: [u64; 4] = unsafe { std::mem::transmute(Scalar::ONE) };
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    assert_eq!(hex_le(&bytes), expected()[1].1);
    let bytes: Vec<u8> = fp([1, 0, 0, 0, 0, 0])
        .l
        .iter()
        .flat_map(|l| l.to_le_bytes())
        .collect();
    assert_eq!(hex_le(&bytes), expected()[4].1);
    assert_eq!(Scalar::MULTIPLICATIVE_GENERATOR, Scalar::from(7u64));
}
