//! SHA-256 of a preimage with bellperson's gadgets: a real circuit of
//! tens of thousands of boolean constraints.

use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::gadgets::{multipack, sha256::sha256};
use blstrs::Scalar;

/// Proves knowledge of a preimage of a public SHA-256 digest.
#[derive(Debug, Clone)]
pub struct Sha256Circuit {
    /// The preimage (its length is part of the circuit's shape).
    pub preimage: Vec<u8>,
}

impl Circuit<Scalar> for Sha256Circuit {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let bits = self
            .preimage
            .iter()
            .flat_map(|byte| (0..8).rev().map(move |i| (byte >> i) & 1 == 1))
            .enumerate()
            .map(|(i, bit)| {
                AllocatedBit::alloc(cs.namespace(|| format!("preimage bit {i}")), Some(bit))
                    .map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let digest = sha256(cs.namespace(|| "sha256"), &bits)?;
        multipack::pack_into_inputs(cs.namespace(|| "digest"), &digest)
    }
}
