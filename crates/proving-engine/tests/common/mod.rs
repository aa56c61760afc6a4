//! A small circuit and a job over it, shared by the engine's tests.

// Each test file uses a part of these.
#![allow(dead_code)]

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar;
use ff::Field;
use groth16_prover::setup::generate_random_parameters;
use pce_core::{synthesize_witness, PrecompiledCircuit};
use proving_engine::{Assignment, EngineError, EngineOptions, Job, LoadedCircuit, PartitionProof};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// `x · x = y` and `(x + 1) · x = z`, with y and z public.
pub struct Squares {
    pub x: Scalar,
}

impl Circuit<Scalar> for Squares {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(|| "x", || Ok(self.x))?;
        let y = cs.alloc_input(|| "y", || Ok(self.x.square()))?;
        let z = cs.alloc_input(|| "z", || Ok(self.x.square() + self.x))?;
        cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
        cs.enforce(
            || "(x + 1) * x = z",
            |lc| lc + x + CS::one(),
            |lc| lc + x,
            |lc| lc + z,
        );
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TestError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("unreadable input")]
    Unreadable,
}

/// What goes wrong in a job.
#[derive(Clone, Copy, PartialEq)]
pub enum Fault {
    None,
    /// The public inputs of this partition are false.
    LieIn(usize),
    /// The witness of this partition breaks a constraint.
    BreakIn(usize),
    /// The input cannot be parsed.
    Unreadable,
    /// Parsing the input panics.
    PanicInOpen,
    /// Witness generation of this partition panics.
    PanicIn(usize),
    /// Combining the proofs panics.
    PanicInFinish,
    /// Witness generation of this partition takes a second, as a large
    /// one does.
    SlowIn(usize),
}

/// A job of one partition per value, proving x² and x² + x for each.
pub struct SquaresJob {
    values: Vec<u64>,
    fault: Fault,
}

pub fn job(values: &[u64], fault: Fault) -> SquaresJob {
    SquaresJob {
        values: values.to_vec(),
        fault,
    }
}

impl Job for SquaresJob {
    type Statement = Vec<Scalar>;
    /// The partition proofs, serialized one after another.
    type Output = Vec<u8>;
    type Error = TestError;

    fn partitions(&self) -> usize {
        self.values.len()
    }

    fn label(&self) -> String {
        format!("squares of {:?}", self.values)
    }

    fn open(&self) -> Result<Vec<Scalar>, TestError> {
        match self.fault {
            Fault::Unreadable => Err(TestError::Unreadable),
            Fault::PanicInOpen => panic!("parsing broke"),
            _ => Ok(self.values.iter().map(|&v| Scalar::from(v)).collect()),
        }
    }

    fn assign(
        &self,
        values: &Vec<Scalar>,
        partition: usize,
        _pce: &PrecompiledCircuit,
    ) -> Result<Assignment, TestError> {
        assert!(
            self.fault != Fault::PanicIn(partition),
            "witness {partition} broke"
        );
        if self.fault == Fault::SlowIn(partition) {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        let x = values[partition];
        let mut witness = synthesize_witness(Squares { x }).unwrap();
        if self.fault == Fault::BreakIn(partition) {
            witness.aux[0] += Scalar::ONE;
        }
        let mut public_inputs = vec![x.square(), x.square() + x];
        if self.fault == Fault::LieIn(partition) {
            public_inputs[1] += Scalar::ONE;
        }
        Ok(Assignment {
            witness,
            public_inputs,
        })
    }

    fn finish(
        &self,
        values: Vec<Scalar>,
        proofs: Vec<PartitionProof>,
    ) -> Result<Vec<u8>, TestError> {
        assert!(self.fault != Fault::PanicInFinish, "finishing broke");
        assert_eq!(proofs.len(), values.len());
        let mut bytes = Vec::new();
        for (proven, x) in proofs.iter().zip(&values) {
            assert_eq!(proven.public_inputs[0], x.square(), "in partition order");
            proven.proof.write(&mut bytes).unwrap();
        }
        Ok(bytes)
    }
}

pub fn circuit(dir: &std::path::Path, resident: bool) -> LoadedCircuit {
    let pce = PrecompiledCircuit::extract(Squares { x: Scalar::ONE }).unwrap();
    let params = generate_random_parameters(&pce, &mut ChaCha20Rng::seed_from_u64(1)).unwrap();
    let path = dir.join("squares.params");
    params.write(std::fs::File::create(&path).unwrap()).unwrap();
    LoadedCircuit::load::<EngineError>("squares", || Ok(pce), &path, resident).unwrap()
}

pub fn options(jobs: usize) -> EngineOptions {
    EngineOptions {
        jobs,
        ..EngineOptions::first_device("cpu")
    }
}
