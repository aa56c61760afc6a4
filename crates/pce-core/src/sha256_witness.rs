//! The witness of bellperson's SHA-256 gadget, computed without the gadget.
//!
//! With the constraints in the PCE, a proof only needs the values the
//! circuit allocates. bellperson's SHA-256 gadget
//! (`bellperson::gadgets::sha256::sha256`) cannot give them cheaply even to
//! a constraint system that ignores `enforce`: `UInt32::addmany` and
//! `MultiEq` build their linear combinations eagerly, term by term into
//! sorted vectors, before `enforce` is called. In a PoRep partition, whose
//! constraints are almost all SHA-256, that is most of the witness's time.
//!
//! This module allocates exactly what that gadget allocates, in the same
//! order and with the same values, and returns the digest. What it must
//! reproduce is not SHA-256 alone but the gadget's constant folding: a bit
//! known at synthesis time (`Boolean::Constant`: padding, the IV, the round
//! constants, constant message bits) allocates nothing where it meets
//! another, and which case applies depends on each operand being a
//! constant, a variable or a variable's negation. So a bit is modelled as
//! exactly those three cases ([`Bit`]), and each operation below follows the
//! gadget's decisions case for case, in the gadget's order of arms:
//!
//! - `xor`, `and`: no allocation when an operand is constant, else one;
//! - `sha256_ch`, `sha256_maj`: folded to an `and` (or nothing) when an
//!   operand is constant, else one allocation (`maj`: two, the result then
//!   `b ∧ c`);
//! - `addmany`: nothing when every operand bit is constant, else one bit per
//!   bit of the largest possible sum (34 or 35), of which 32 are kept;
//! - rotations and shifts allocate nothing, nor does `MultiEq`.
//!
//! The tests compare the allocated values, all of them, with the gadget's
//! through [`crate::WitnessCS`] on inputs mixing all three kinds of bits.

use bellpepper_core::boolean::Boolean;
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::{Field, PrimeField};

const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Allocates, through `cs.alloc`, exactly the values that bellperson's
/// `sha256::sha256(cs, input)` gadget allocates, in its order, and returns
/// the digest's 256 bits in the order of that gadget's output (big-endian).
///
/// Every non-constant bit of `input` must have a value.
pub fn sha256<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    input: &[Boolean],
) -> Result<Vec<bool>, SynthesisError> {
    assert!(input.len().is_multiple_of(8), "SHA-256 of whole bytes");
    let mut padded = input.iter().map(Bit::of).collect::<Result<Vec<_>, _>>()?;
    let length = input.len() as u64;
    padded.push(Bit::Constant(true));
    while !(padded.len() + 64).is_multiple_of(512) {
        padded.push(Bit::Constant(false));
    }
    padded.extend((0..64).rev().map(|i| Bit::Constant((length >> i) & 1 == 1)));

    let mut gadget = Gadget { cs };
    let mut state = IV.map(Word::constant);
    for block in padded.chunks(512) {
        state = gadget.compress(block, &state)?;
    }
    Ok(state
        .iter()
        .flat_map(|word| word.bits.iter().rev().map(|bit| bit.value()))
        .collect())
}

/// Allocates what bellperson's `multipack::pack_bits(cs, bits)` allocates
/// for bits of these values: one number, the first `Scalar::CAPACITY` bits
/// read as an integer, least significant first.
pub fn pack_bits<CS: ConstraintSystem<Scalar>>(
    cs: &mut CS,
    bits: &[bool],
) -> Result<AllocatedNum<Scalar>, SynthesisError> {
    let mut limbs = [0u64; 4];
    for (i, _) in bits
        .iter()
        .take(Scalar::CAPACITY as usize)
        .enumerate()
        .filter(|(_, &bit)| bit)
    {
        limbs[i / 64] |= 1 << (i % 64);
    }
    // Fewer than CAPACITY bits are below the modulus.
    let value = Scalar::from_u64s_le(&limbs).unwrap();
    AllocatedNum::alloc(cs, || Ok(value))
}

/// A bit as the gadget sees it: known at synthesis time, or a variable
/// (holding the given value) taken as it is or negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Constant(bool),
    /// `Boolean::Is`: the variable's value.
    Is(bool),
    /// `Boolean::Not`: the variable's value (the bit is its negation).
    Not(bool),
}

impl Bit {
    fn of(boolean: &Boolean) -> Result<Self, SynthesisError> {
        let missing = SynthesisError::AssignmentMissing;
        Ok(match boolean {
            Boolean::Constant(value) => Bit::Constant(*value),
            Boolean::Is(bit) => Bit::Is(bit.get_value().ok_or(missing)?),
            Boolean::Not(bit) => Bit::Not(bit.get_value().ok_or(missing)?),
        })
    }

    fn value(self) -> bool {
        match self {
            Bit::Constant(value) | Bit::Is(value) => value,
            Bit::Not(value) => !value,
        }
    }

    fn not(self) -> Self {
        match self {
            Bit::Constant(value) => Bit::Constant(!value),
            Bit::Is(value) => Bit::Not(value),
            Bit::Not(value) => Bit::Is(value),
        }
    }

    fn is_constant(self) -> bool {
        matches!(self, Bit::Constant(_))
    }
}

/// A 32-bit word, least significant bit first, with its value.
#[derive(Clone, Copy, Debug)]
struct Word {
    bits: [Bit; 32],
    value: u32,
}

impl Word {
    fn constant(value: u32) -> Self {
        Word {
            bits: std::array::from_fn(|i| Bit::Constant((value >> i) & 1 == 1)),
            value,
        }
    }

    /// A word from 32 bits, most significant first.
    fn from_bits_be(bits: &[Bit]) -> Self {
        let value = bits
            .iter()
            .fold(0u32, |word, bit| (word << 1) | u32::from(bit.value()));
        Word {
            bits: std::array::from_fn(|i| bits[31 - i]),
            value,
        }
    }

    fn rotr(&self, by: usize) -> Self {
        Word {
            bits: std::array::from_fn(|i| self.bits[(i + by) % 32]),
            value: self.value.rotate_right(by as u32),
        }
    }

    fn shr(&self, by: usize) -> Self {
        Word {
            bits: std::array::from_fn(|i| {
                self.bits
                    .get(i + by)
                    .copied()
                    .unwrap_or(Bit::Constant(false))
            }),
            value: self.value >> by,
        }
    }
}

/// A word of the compression whose sum the gadget defers until it is
/// needed (its `Maybe`).
enum Deferred {
    Concrete(Word),
    Sum(Vec<Word>),
}

/// The gadget's operations over the constraint system they allocate in.
struct Gadget<'a, CS> {
    cs: &'a mut CS,
}

impl<CS: ConstraintSystem<Scalar>> Gadget<'_, CS> {
    /// One allocated bit holding `value`.
    fn alloc(&mut self, value: bool) -> Result<Bit, SynthesisError> {
        self.cs.alloc(
            || "bit",
            || Ok(if value { Scalar::ONE } else { Scalar::ZERO }),
        )?;
        Ok(Bit::Is(value))
    }

    /// `Boolean::xor`.
    fn xor(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        Ok(match (a, b) {
            (Bit::Constant(false), x) | (x, Bit::Constant(false)) => x,
            (Bit::Constant(true), x) | (x, Bit::Constant(true)) => x.not(),
            // Is with Not: the xor of the two variables, negated.
            (Bit::Is(x), Bit::Not(y)) | (Bit::Not(x), Bit::Is(y)) => self.alloc(x ^ y)?.not(),
            (Bit::Is(x), Bit::Is(y)) | (Bit::Not(x), Bit::Not(y)) => self.alloc(x ^ y)?,
        })
    }

    /// `Boolean::and`: every case with two variables allocates the result.
    fn and(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        Ok(match (a, b) {
            (Bit::Constant(false), _) | (_, Bit::Constant(false)) => Bit::Constant(false),
            (Bit::Constant(true), x) | (x, Bit::Constant(true)) => x,
            _ => self.alloc(a.value() & b.value())?,
        })
    }

    /// `Boolean::sha256_ch`: `(a ∧ b) ⊕ (¬a ∧ c)`.
    fn ch(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        use Bit::Constant as K;
        match (a, b, c) {
            (K(_), K(_), K(_)) => {
                return Ok(K((a.value() & b.value()) ^ (!a.value() & c.value())));
            }
            (K(false), _, c) => return Ok(c),
            (a, K(false), c) => return self.and(a.not(), c),
            (a, b, K(false)) => return self.and(a, b),
            (a, b, K(true)) => return Ok(self.and(a, b.not())?.not()),
            (a, K(true), c) => return Ok(self.and(a.not(), c.not())?.not()),
            _ => {}
        }
        self.alloc((a.value() & b.value()) ^ (!a.value() & c.value()))
    }

    /// `Boolean::sha256_maj`: the majority of `a`, `b`, `c`.
    fn maj(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        use Bit::Constant as K;
        match (a, b, c) {
            (K(_), K(_), K(_)) => {
                let (a, b, c) = (a.value(), b.value(), c.value());
                return Ok(K((a & b) ^ (a & c) ^ (b & c)));
            }
            (K(false), b, c) => return self.and(b, c),
            (a, K(false), c) => return self.and(a, c),
            (a, b, K(false)) => return self.and(a, b),
            (a, b, K(true)) => return Ok(self.and(a.not(), b.not())?.not()),
            (a, K(true), c) => return Ok(self.and(a.not(), c.not())?.not()),
            (K(true), b, c) => return Ok(self.and(b.not(), c.not())?.not()),
            _ => {}
        }
        let (x, y, z) = (a.value(), b.value(), c.value());
        let majority = self.alloc((x & y) ^ (x & z) ^ (y & z))?;
        // The gadget allocates b ∧ c after the result, for its constraint.
        self.and(b, c)?;
        Ok(majority)
    }

    /// `UInt32::xor`, bit by bit from the least significant.
    fn xor_words(&mut self, a: &Word, b: &Word) -> Result<Word, SynthesisError> {
        let mut bits = [Bit::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = self.xor(a.bits[i], b.bits[i])?;
        }
        Ok(Word {
            bits,
            value: a.value ^ b.value,
        })
    }

    /// `UInt32::sha256_ch` or `sha256_maj`, bit by bit.
    fn triop(
        &mut self,
        op: fn(&mut Self, Bit, Bit, Bit) -> Result<Bit, SynthesisError>,
        value: u32,
        a: &Word,
        b: &Word,
        c: &Word,
    ) -> Result<Word, SynthesisError> {
        let mut bits = [Bit::Constant(false); 32];
        for (i, bit) in bits.iter_mut().enumerate() {
            *bit = op(self, a.bits[i], b.bits[i], c.bits[i])?;
        }
        Ok(Word { bits, value })
    }

    /// `UInt32::addmany`: the sum modulo 2^32.
    fn addmany(&mut self, operands: &[Word]) -> Result<Word, SynthesisError> {
        let sum = operands.iter().map(|w| u64::from(w.value)).sum::<u64>();
        if operands
            .iter()
            .all(|w| w.bits.iter().all(|b| b.is_constant()))
        {
            return Ok(Word::constant(sum as u32));
        }
        // One bit for each bit of the largest possible sum.
        let max_sum = operands.len() as u64 * u64::from(u32::MAX);
        let width = (u64::BITS - max_sum.leading_zeros()) as usize;
        let mut bits = [Bit::Constant(false); 32];
        for i in 0..width {
            let bit = self.alloc((sum >> i) & 1 == 1)?;
            // The bits above 32 are allocated (and constrained) but dropped.
            if let Some(kept) = bits.get_mut(i) {
                *kept = bit;
            }
        }
        Ok(Word {
            bits,
            value: sum as u32,
        })
    }

    /// `Maybe::compute`: the deferred sum, with `others` added.
    fn settle(&mut self, word: Deferred, others: &[Word]) -> Result<Word, SynthesisError> {
        match word {
            Deferred::Concrete(word) => Ok(word),
            Deferred::Sum(mut operands) => {
                operands.extend_from_slice(others);
                self.addmany(&operands)
            }
        }
    }

    /// `σ`/`Σ`: the xor of three rotations or shifts of one word.
    fn sigma(&mut self, parts: [Word; 3]) -> Result<Word, SynthesisError> {
        let first = self.xor_words(&parts[0], &parts[1])?;
        self.xor_words(&first, &parts[2])
    }

    /// `sha256_compression_function`: one 512-bit block into `state`.
    fn compress(&mut self, block: &[Bit], state: &[Word; 8]) -> Result<[Word; 8], SynthesisError> {
        let mut w = block.chunks(32).map(Word::from_bits_be).collect::<Vec<_>>();
        for i in 16..64 {
            let x = w[i - 15];
            let s0 = self.sigma([x.rotr(7), x.rotr(18), x.shr(3)])?;
            let y = w[i - 2];
            let s1 = self.sigma([y.rotr(17), y.rotr(19), y.shr(10)])?;
            let next = self.addmany(&[w[i - 16], s0, w[i - 7], s1])?;
            w.push(next);
        }

        let mut a = Deferred::Concrete(state[0]);
        let [_, mut b, mut c, mut d, _, mut f, mut g, mut h] = *state;
        let mut e = Deferred::Concrete(state[4]);
        for i in 0..64 {
            let new_e = self.settle(e, &[])?;
            let s1 = self.sigma([new_e.rotr(6), new_e.rotr(11), new_e.rotr(25)])?;
            let ch_value = (new_e.value & f.value) ^ (!new_e.value & g.value);
            let ch = self.triop(Self::ch, ch_value, &new_e, &f, &g)?;
            let temp1 = [h, s1, ch, Word::constant(ROUND_CONSTANTS[i]), w[i]];

            let new_a = self.settle(a, &[])?;
            let s0 = self.sigma([new_a.rotr(2), new_a.rotr(13), new_a.rotr(22)])?;
            let maj_value = (new_a.value & b.value) ^ (new_a.value & c.value) ^ (b.value & c.value);
            let maj = self.triop(Self::maj, maj_value, &new_a, &b, &c)?;

            h = g;
            g = f;
            f = new_e;
            e = Deferred::Sum(temp1.iter().copied().chain([d]).collect());
            d = c;
            c = b;
            b = new_a;
            a = Deferred::Sum(temp1.iter().copied().chain([s0, maj]).collect());
        }

        Ok([
            self.settle(a, &[state[0]])?,
            self.addmany(&[state[1], b])?,
            self.addmany(&[state[2], c])?,
            self.addmany(&[state[3], d])?,
            self.settle(e, &[state[4]])?,
            self.addmany(&[state[5], f])?,
            self.addmany(&[state[6], g])?,
            self.addmany(&[state[7], h])?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper_core::boolean::AllocatedBit;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::WitnessCS;

    /// `bits` random bits, each a constant, a variable or a negated
    /// variable as `kinds` says (0, 1, 2), the variables allocated in `cs`.
    fn input(cs: &mut WitnessCS, rng: &mut ChaCha8Rng, bits: usize, kinds: &[u8]) -> Vec<Boolean> {
        (0..bits)
            .map(|_| {
                let value = rng.gen::<bool>();
                match kinds[rng.gen_range(0..kinds.len())] {
                    0 => Boolean::Constant(value),
                    kind => {
                        let bit = AllocatedBit::alloc(&mut *cs, Some(value)).unwrap();
                        if kind == 1 {
                            Boolean::Is(bit)
                        } else {
                            Boolean::Not(bit)
                        }
                    }
                }
            })
            .collect()
    }

    /// The gadget's and this module's witnesses and digests on the same
    /// input, which must be equal value for value.
    fn compare(seed: u64, bits: usize, kinds: &[u8]) {
        let run = |native: bool| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut cs = WitnessCS::default();
            let input = input(&mut cs, &mut rng, bits, kinds);
            let digest: Vec<bool> = if native {
                sha256(&mut cs, &input).unwrap()
            } else {
                bellperson::gadgets::sha256::sha256(&mut cs, &input)
                    .unwrap()
                    .iter()
                    .map(|bit| bit.get_value().unwrap())
                    .collect()
            };
            (cs.into_witness(), digest)
        };
        let (gadget, gadget_digest) = run(false);
        let (native, native_digest) = run(true);
        assert_eq!(
            native_digest, gadget_digest,
            "digest, seed {seed}, {bits} bits"
        );
        assert_eq!(native.inputs, gadget.inputs);
        if let Some(at) =
            (0..native.aux.len().min(gadget.aux.len())).find(|&i| native.aux[i] != gadget.aux[i])
        {
            panic!("seed {seed}, {bits} bits, kinds {kinds:?}: aux {at} differs");
        }
        assert_eq!(
            native.aux.len(),
            gadget.aux.len(),
            "seed {seed}, {bits} bits, kinds {kinds:?}: number of allocations"
        );
    }

    #[test]
    fn allocates_what_the_gadget_allocates() {
        let kinds: [&[u8]; 5] = [&[0], &[1], &[2], &[0, 1], &[0, 1, 2]];
        for (seed, bits) in [0, 8, 440, 448, 512, 1024, 1312 * 8]
            .into_iter()
            .enumerate()
        {
            for kinds in kinds {
                compare(seed as u64, bits, kinds);
            }
        }
    }

    #[test]
    fn packs_as_multipack_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for len in [0, 1, 64, 253, 254, 256] {
            let bits: Vec<bool> = (0..len).map(|_| rng.gen()).collect();
            let booleans: Vec<Boolean> = bits.iter().map(|&b| Boolean::Constant(b)).collect();
            let mut cs = WitnessCS::default();
            let gadget = bellperson::gadgets::multipack::pack_bits(&mut cs, &booleans).unwrap();
            let native = pack_bits(&mut cs, &bits).unwrap();
            assert_eq!(native.get_value(), gadget.get_value(), "{len} bits");
            let witness = cs.into_witness();
            assert_eq!(witness.aux.len(), 2);
            assert_eq!(witness.aux[0], witness.aux[1]);
        }
    }

    #[test]
    fn computes_sha256() {
        // SHA-256("abc"), as constants: nothing allocated.
        let bits: Vec<Boolean> = b"abc"
            .iter()
            .flat_map(|byte| {
                (0..8)
                    .rev()
                    .map(move |i| Boolean::Constant((byte >> i) & 1 == 1))
            })
            .collect();
        let mut cs = WitnessCS::default();
        let digest = sha256(&mut cs, &bits).unwrap();
        let bytes: Vec<u8> = digest
            .chunks(8)
            .map(|byte| {
                byte.iter()
                    .fold(0u8, |acc, &bit| (acc << 1) | u8::from(bit))
            })
            .collect();
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, expected);
        assert!(cs.into_witness().aux.is_empty());
    }
}
