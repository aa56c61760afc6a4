//! The smallest circuits: `constraints` constraints `x · x = y` over one
//! private x, and no public input but ONE. With no constraint the circuit
//! is ONE's input constraint alone: a QAP domain of one element and an
//! empty H query, the edge every prover and parameter generator must get
//! right.

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;

/// `constraints` constraints `x · x = y` (x = 3, each y = 9).
#[derive(Debug, Clone, Copy)]
pub struct Squares {
    /// How many constraints.
    pub constraints: usize,
}

impl Circuit<Scalar> for Squares {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        // No x without a constraint: bellperson refuses an unconstrained
        // variable.
        if self.constraints == 0 {
            return Ok(());
        }
        let x = cs.alloc(|| "x", || Ok(Scalar::from(3)))?;
        for _ in 0..self.constraints {
            let y = cs.alloc(|| "y", || Ok(Scalar::from(9)))?;
            cs.enforce(|| "x · x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        }
        Ok(())
    }
}
