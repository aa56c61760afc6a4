//! A constraint system that records the R1CS instead of evaluating it.
//!
//! Inputs and aux variables interleave during synthesis, and the final
//! column of an aux variable (`num_inputs + index`) is only known once all
//! inputs are allocated. Terms are therefore recorded under a label with
//! the top bit marking inputs, and relabelled to columns when the matrices
//! are finished. Values are never computed: a blank circuit records fine.

use bellpepper_core::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use pce_csr::{CsrBuilder, CsrMatrix};

use crate::error::PceError;
use crate::synthesis::{root_without_namespaces, CountInputs};

/// Label bit marking an input variable.
const INPUT_LABEL: u32 = 1 << 31;
/// Largest number of variables of one kind a label can address.
const MAX_VARIABLES: usize = INPUT_LABEL as usize;

/// Records the A, B, C rows of every enforced constraint.
#[derive(Debug, Clone, Default)]
pub struct RecordingCS {
    num_inputs: usize,
    num_aux: usize,
    a: CsrBuilder,
    b: CsrBuilder,
    c: CsrBuilder,
}

fn label(index: Index) -> u32 {
    match index {
        // Indices at or past the limit are caught in `finish`; truncating
        // here cannot produce a valid-looking label for them because the
        // counts themselves are checked first.
        Index::Input(i) => INPUT_LABEL | (i as u32 & !INPUT_LABEL),
        Index::Aux(i) => i as u32 & !INPUT_LABEL,
    }
}

fn record(builder: &mut CsrBuilder, lc: &LinearCombination<Scalar>) {
    let inputs = lc
        .iter_inputs()
        .map(|(&i, coeff)| (label(Index::Input(i)), coeff));
    let aux = lc
        .iter_aux()
        .map(|(&i, coeff)| (label(Index::Aux(i)), coeff));
    builder.push_row(inputs.chain(aux));
}

impl RecordingCS {
    /// Number of constraints recorded.
    pub fn num_constraints(&self) -> usize {
        self.a.num_rows()
    }

    /// Number of aux variables allocated.
    pub fn num_aux(&self) -> usize {
        self.num_aux
    }

    /// Turns the recording into matrices with columns `inputs ‖ aux`.
    pub(crate) fn finish(self) -> Result<(usize, usize, [CsrMatrix; 3]), PceError> {
        let (num_inputs, num_aux) = (self.num_inputs, self.num_aux);
        if num_inputs >= MAX_VARIABLES || num_aux >= MAX_VARIABLES {
            return Err(PceError::TooLarge {
                inputs: num_inputs,
                aux: num_aux,
            });
        }
        for (matrix, builder) in [("A", &self.a), ("B", &self.b), ("C", &self.c)] {
            let mut unallocated = None;
            builder.for_each_col(|&label| {
                let (kind, index, allocated) = if label & INPUT_LABEL != 0 {
                    ("input", (label & !INPUT_LABEL) as usize, num_inputs)
                } else {
                    ("aux", label as usize, num_aux)
                };
                if index >= allocated && unallocated.is_none() {
                    unallocated = Some((kind, index, allocated));
                }
            });
            if let Some((kind, index, allocated)) = unallocated {
                return Err(PceError::Unallocated {
                    matrix,
                    kind,
                    index,
                    allocated,
                });
            }
        }
        let num_cols = num_inputs + num_aux;
        let column = move |label: u32| {
            if label & INPUT_LABEL != 0 {
                label & !INPUT_LABEL
            } else {
                num_inputs as u32 + label
            }
        };
        let a = self.a.finish(num_cols, column);
        let b = self.b.finish(num_cols, column);
        let c = self.c.finish(num_cols, column);
        Ok((num_inputs, num_aux, [a, b, c]))
    }
}

impl CountInputs for RecordingCS {
    fn num_inputs(&self) -> usize {
        self.num_inputs
    }
}

impl ConstraintSystem<Scalar> for RecordingCS {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        record(&mut self.a, &a(LinearCombination::zero()));
        record(&mut self.b, &b(LinearCombination::zero()));
        record(&mut self.c, &c(LinearCombination::zero()));
    }

    root_without_namespaces!();

    /// Appends `other`, whose input 0 is its temporary ONE: terms on it
    /// become terms on this system's ONE, its other inputs and all its aux
    /// variables are renumbered after this system's.
    fn extend(&mut self, other: &Self) {
        let input_base = self.num_inputs as u32;
        let aux_base = self.num_aux as u32;
        let relabel = |label: u32| {
            if label == INPUT_LABEL {
                INPUT_LABEL
            } else if label & INPUT_LABEL != 0 {
                label.wrapping_add(input_base).wrapping_sub(1)
            } else {
                label.wrapping_add(aux_base)
            }
        };
        self.a.append(&other.a, relabel);
        self.b.append(&other.b, relabel);
        self.c.append(&other.c, relabel);
        self.num_inputs += other.num_inputs.saturating_sub(1);
        self.num_aux += other.num_aux;
    }
}
