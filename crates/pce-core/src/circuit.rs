//! The pre-compiled circuit: matrices, densities and shape.

use bellpepper_core::{Circuit, ConstraintSystem};
use blstrs::Scalar;
use pce_csr::{CsrMatrix, SplitVector};
use tracing::debug;

use crate::density::Density;
use crate::error::PceError;
use crate::recording_cs::RecordingCS;
use crate::synthesis::{synthesize_as_prover, Witness};

/// An R1CS recorded once and evaluated for every witness.
///
/// Columns are `inputs ‖ aux` (input 0 is ONE); rows are the circuit's
/// constraints followed by one `input_i · 0 = 0` row per input, exactly the
/// constraints bellperson's prover evaluates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrecompiledCircuit {
    pub(crate) num_inputs: usize,
    pub(crate) num_aux: usize,
    pub(crate) a: CsrMatrix,
    pub(crate) b: CsrMatrix,
    pub(crate) c: CsrMatrix,
    pub(crate) a_aux_density: Density,
    pub(crate) b_input_density: Density,
    pub(crate) b_aux_density: Density,
}

/// A circuit's dimensions and the memory it holds: what its memory is
/// planned from, known before its matrices are read
/// ([`PceSize::of_file`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PceSize {
    /// Public inputs, ONE included.
    pub num_inputs: usize,
    /// Auxiliary variables.
    pub num_aux: usize,
    /// Constraints, the appended input constraints included.
    pub num_constraints: usize,
    /// Bytes of its matrices and densities in memory.
    pub held_bytes: u64,
}

/// `a = A·w`, `b = B·w`, `c = C·w`, one entry per constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluations {
    /// `A·w`.
    pub a: Vec<Scalar>,
    /// `B·w`.
    pub b: Vec<Scalar>,
    /// `C·w`.
    pub c: Vec<Scalar>,
}

impl Evaluations {
    /// `a`, `b`, `c` of `n` zeros each, for
    /// [`PrecompiledCircuit::evaluate_into`] to overwrite: gigabytes each
    /// at 32 GiB, in huge pages, zeroed by the kernel as the MatVec's
    /// threads first write them.
    pub fn zeroed(n: usize) -> Self {
        Self {
            a: large_buffers::zeroed(n),
            b: large_buffers::zeroed(n),
            c: large_buffers::zeroed(n),
        }
    }
}

impl PrecompiledCircuit {
    /// Records `circuit` (a blank circuit is enough: no value is computed).
    pub fn extract<C: Circuit<Scalar>>(circuit: C) -> Result<Self, PceError> {
        let mut cs = RecordingCS::new();
        synthesize_as_prover(circuit, &mut cs)?;
        debug!(
            constraints = cs.num_constraints(),
            aux = cs.num_aux(),
            "circuit recorded"
        );
        let (num_inputs, num_aux, [a, b, c]) = cs.finish()?;
        Ok(Self::from_matrices(num_inputs, num_aux, a, b, c))
    }

    /// Assembles a circuit from finished matrices, deriving the densities.
    pub(crate) fn from_matrices(
        num_inputs: usize,
        num_aux: usize,
        a: CsrMatrix,
        b: CsrMatrix,
        c: CsrMatrix,
    ) -> Self {
        let aux_columns = |m: &CsrMatrix| {
            let cols = m.cols().iter().map(|&col| col as usize);
            Density::from_indices(num_aux, cols.filter_map(|col| col.checked_sub(num_inputs)))
        };
        let input_columns = b.cols().iter().map(|&col| col as usize);
        let b_input_density =
            Density::from_indices(num_inputs, input_columns.filter(|&col| col < num_inputs));
        Self {
            num_inputs,
            num_aux,
            a_aux_density: aux_columns(&a),
            b_aux_density: aux_columns(&b),
            b_input_density,
            a,
            b,
            c,
        }
    }

    /// Public inputs, ONE included.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Auxiliary variables.
    pub fn num_aux(&self) -> usize {
        self.num_aux
    }

    /// Constraints, the appended input constraints included.
    pub fn num_constraints(&self) -> usize {
        self.a.num_rows()
    }

    /// The matrices A, B, C.
    pub fn matrices(&self) -> [&CsrMatrix; 3] {
        [&self.a, &self.b, &self.c]
    }

    /// Aux variables used in A.
    pub fn a_aux_density(&self) -> &Density {
        &self.a_aux_density
    }

    /// Inputs used in B.
    pub fn b_input_density(&self) -> &Density {
        &self.b_input_density
    }

    /// Aux variables used in B.
    pub fn b_aux_density(&self) -> &Density {
        &self.b_aux_density
    }

    /// Non-zeros of A, B and C together.
    pub fn nnz(&self) -> usize {
        self.matrices().iter().map(|m| m.nnz()).sum()
    }

    /// Its dimensions and the bytes of its matrices and densities.
    pub fn size(&self) -> PceSize {
        let density_bits =
            self.a_aux_density.len() + self.b_input_density.len() + self.b_aux_density.len();
        PceSize {
            num_inputs: self.num_inputs,
            num_aux: self.num_aux,
            num_constraints: self.num_constraints(),
            held_bytes: (self.matrix_bytes() + density_bits / 8) as u64,
        }
    }

    /// Bytes of the three matrices in memory.
    pub fn matrix_bytes(&self) -> usize {
        self.matrices().iter().map(|m| m.size_bytes()).sum()
    }

    pub(crate) fn check_witness(&self, witness: &Witness) -> Result<(), PceError> {
        if witness.inputs.len() != self.num_inputs || witness.aux.len() != self.num_aux {
            return Err(PceError::WitnessShape {
                inputs: witness.inputs.len(),
                aux: witness.aux.len(),
                expected_inputs: self.num_inputs,
                expected_aux: self.num_aux,
            });
        }
        Ok(())
    }

    /// Computes `A·w`, `B·w`, `C·w` into caller buffers of
    /// [`Self::num_constraints`] entries each (e.g. the prefix of an FFT
    /// domain, so no copy is needed afterwards).
    pub fn evaluate_into(
        &self,
        witness: &Witness,
        a: &mut [Scalar],
        b: &mut [Scalar],
        c: &mut [Scalar],
    ) -> Result<(), PceError> {
        self.check_witness(witness)?;
        let w = SplitVector::new(&witness.inputs, &witness.aux);
        self.a.mul_vec_into(w, a)?;
        self.b.mul_vec_into(w, b)?;
        self.c.mul_vec_into(w, c)?;
        Ok(())
    }

    /// Computes `A·w`, `B·w`, `C·w`.
    pub fn evaluate(&self, witness: &Witness) -> Result<Evaluations, PceError> {
        let mut out = Evaluations::zeroed(self.num_constraints());
        self.evaluate_into(witness, &mut out.a, &mut out.b, &mut out.c)?;
        Ok(out)
    }
}
