//! What a proof kind gives the engine: its partitions' witnesses, and what
//! to make of their proofs.
//!
//! A job is one statement to prove (a sealed sector, a PoSt partition set,
//! a sector update): one or more partitions, each an instance of the same
//! circuit, proven separately and combined at the end. The engine knows
//! nothing of the input's format; the job parses it once ([`Job::open`]),
//! on a witness thread, into a statement that produces each partition's
//! witness and public inputs, and turns the verified partition proofs into
//! the job's output ([`Job::finish`]).

use bellperson::groth16::Proof;
use blstrs::{Bls12, Scalar};
use pce_core::{PrecompiledCircuit, Witness};

use crate::EngineError;

/// A partition ready to prove.
pub struct Assignment {
    /// The witness, in the circuit's variable order.
    pub witness: Witness,
    /// The public inputs the proof must verify against, derived by the job
    /// from its input (not taken from the witness), without the leading ONE.
    pub public_inputs: Vec<Scalar>,
}

/// A partition's proof, verified against its public inputs.
#[derive(Debug, Clone)]
pub struct PartitionProof {
    /// The proof.
    pub proof: Proof<Bls12>,
    /// The public inputs it verified against.
    pub public_inputs: Vec<Scalar>,
}

/// One statement to prove, in partitions of one circuit.
pub trait Job: Sync {
    /// The parsed input: makes the partitions' assignments, then keeps what
    /// [`Job::finish`] needs.
    type Statement: Send + Sync;
    /// What the job produces from its verified partition proofs.
    type Output: Send;
    /// The job's errors, engine errors included.
    type Error: std::error::Error + From<EngineError> + Send + 'static;

    /// Number of partitions; known before the input is parsed (the engine
    /// plans randomness and progress with it).
    fn partitions(&self) -> usize;

    /// How logs name the job (its input file, a request id).
    fn label(&self) -> String;

    /// Parses the input, once, on a witness thread; the statement is then
    /// shared by the threads that generate the partitions' witnesses.
    fn open(&self) -> Result<Self::Statement, Self::Error>;

    /// The witness and public inputs of `partition` of the circuit `pce`.
    fn assign(
        &self,
        statement: &Self::Statement,
        partition: usize,
        pce: &PrecompiledCircuit,
    ) -> Result<Assignment, Self::Error>;

    /// Combines the proofs, in partition order, into the job's output and
    /// checks it as a whole where the proof kind allows.
    fn finish(
        &self,
        statement: Self::Statement,
        proofs: Vec<PartitionProof>,
    ) -> Result<Self::Output, Self::Error>;
}
