//! Which constraint a witness breaks: the diagnosis of a proof that does
//! not verify.
//!
//! A Groth16 proof fails verification for one of two reasons: the backend
//! computed something wrong, or the statement is false, the witness
//! breaking some `a_i · b_i = c_i`. No other backend can prove a false
//! statement, so a prover that tells the two apart neither retries it
//! elsewhere nor blames the device. With a PCE, a false statement also has
//! a cause of its own: matrices recorded from another version of the
//! circuit than the code that computes the witness.
//!
//! The check is a MatVec of the three matrices, a row block at a time (a
//! block's `a`, `b` and `c` in a buffer of its own, 384 KiB: at 32 GiB the
//! whole product would be 12 GiB), and one product per row. It runs only
//! after a proof failed, never on the proving path.

use blstrs::Scalar;
use pce_csr::matrix::BLOCK_ROWS;
use pce_csr::SplitVector;
use rayon::prelude::*;

use crate::circuit::PrecompiledCircuit;
use crate::error::PceError;
use crate::synthesis::Witness;

impl PrecompiledCircuit {
    /// The first constraint (row, counting the appended input
    /// constraints) whose `a · b` differs from its `c` for `witness`, or
    /// `None` if the witness satisfies every constraint.
    pub fn first_unsatisfied(&self, witness: &Witness) -> Result<Option<usize>, PceError> {
        self.check_witness(witness)?;
        let w = SplitVector::new(&witness.inputs, &witness.aux);
        let blocks = self.num_constraints().div_ceil(BLOCK_ROWS);
        Ok((0..blocks).into_par_iter().find_map_first(|block| {
            let rows = BLOCK_ROWS.min(self.num_constraints() - block * BLOCK_ROWS);
            let mut abc = vec![Scalar::default(); 3 * rows];
            let (a, bc) = abc.split_at_mut(rows);
            let (b, c) = bc.split_at_mut(rows);
            self.a.mul_vec_block(block, w, a);
            self.b.mul_vec_block(block, w, b);
            self.c.mul_vec_block(block, w, c);
            (0..rows)
                .find(|&row| a[row] * b[row] != c[row])
                .map(|row| block * BLOCK_ROWS + row)
        }))
    }
}

#[cfg(test)]
mod tests {
    use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
    use ff::Field;

    use super::*;
    use crate::synthesis::synthesize_witness;

    /// `BLOCK_ROWS + 10` constraints `z_i · 1 = i`, then `x · x = y` for a
    /// public x: a broken constraint can sit in either block.
    struct Squares {
        x: Option<Scalar>,
        y: Option<Scalar>,
    }

    impl Circuit<Scalar> for Squares {
        fn synthesize<CS: ConstraintSystem<Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), SynthesisError> {
            let x = cs.alloc_input(|| "x", || self.x.ok_or(SynthesisError::AssignmentMissing))?;
            for i in 0..BLOCK_ROWS + 10 {
                let z = cs.alloc(|| "z", || Ok(Scalar::from(i as u64)))?;
                let i = Scalar::from(i as u64);
                cs.enforce(
                    || "z·1",
                    |lc| lc + z,
                    |lc| lc + CS::one(),
                    |lc| lc + (i, CS::one()),
                );
            }
            let y = cs.alloc(|| "y", || self.y.ok_or(SynthesisError::AssignmentMissing))?;
            cs.enforce(|| "x·x", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            Ok(())
        }
    }

    fn witness(x: u64, y: u64) -> Witness {
        synthesize_witness(Squares {
            x: Some(Scalar::from(x)),
            y: Some(Scalar::from(y)),
        })
        .unwrap()
    }

    #[test]
    fn names_the_first_broken_constraint_or_none() {
        let pce = PrecompiledCircuit::extract(Squares { x: None, y: None }).unwrap();
        assert_eq!(pce.first_unsatisfied(&witness(3, 9)).unwrap(), None);
        // The square is the last constraint before the input constraints.
        let square = BLOCK_ROWS + 10;
        assert_eq!(
            pce.first_unsatisfied(&witness(3, 10)).unwrap(),
            Some(square)
        );

        // A broken constraint in the first block is found before it.
        let mut early = witness(3, 10);
        early.aux[5] += Scalar::ONE;
        assert_eq!(pce.first_unsatisfied(&early).unwrap(), Some(5));

        let mut short = witness(3, 9);
        short.aux.pop();
        assert!(matches!(
            pce.first_unsatisfied(&short),
            Err(PceError::WitnessShape { .. })
        ));
    }
}
