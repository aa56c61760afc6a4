//! Any storage-proofs compound proof on the engine.
//!
//! storage-proofs describes Filecoin's SNARKs as *compound proofs*: a
//! vanilla proof scheme (Merkle inclusion proofs and the like, made by the
//! sealing or proving pipeline), a circuit that checks one partition's
//! vanilla proof, and a `CompoundProof` that connects them. From the public
//! inputs `x`, the public parameters `pp` and partition `k`'s vanilla proof
//! `v_k` it gives everything the engine needs:
//!
//! ```text
//! circuit_k       = circuit(x, v_k, pp, k)            witness: synthesize(circuit_k)
//! public_inputs_k = generate_public_inputs(x, pp, k)  from x alone, to verify with
//! blank           = blank_circuit(pp)                 the PCE is recorded from it
//! id              = cache_identifier(pp)              names .params, .vk and .pce
//! ```
//!
//! So every proof kind that is a compound proof (WindowPoSt, WinningPoSt,
//! SnapDeals) is proven by the code here; a kind adds only how its input is
//! read and checked and how its whole proof is verified ([`ProofKind`]).
//! PoRep has its own job ([`crate::sector`]) for its challenge-parallel
//! witness and its aggregation.

use std::marker::PhantomData;
use std::time::Duration;

use bellpepper_core::Circuit;
use blstrs::Scalar;
use groth16_prover::PROOF_BYTES;
use pce_core::{synthesize_witness, PrecompiledCircuit, Witness};
use proving_engine::{
    Assignment, DeviceProver, DeviceUse, EngineOptions, Job, LoadedCircuit, MemoryPlan, Observer,
    PartitionProof, Proven,
};
use storage_proofs_core::compound_proof::{CircuitComponent, CompoundProof};
use storage_proofs_core::parameter_cache::{CacheableParameters, ParameterSetMetadata};
use storage_proofs_core::proof::ProofScheme;

use crate::cache::CircuitFiles;
use crate::C2Error;

/// The three types of a compound proof, named once.
pub trait Scheme: 'static {
    /// The vanilla proof scheme.
    type Vanilla: ProofScheme<
        'static,
        PublicInputs: Send + Sync,
        PublicParams: ParameterSetMetadata + Send + Sync,
        Proof: Send + Sync,
    >;
    /// The circuit of one partition.
    type Circuit: Circuit<Scalar> + CircuitComponent + Send;
    /// The compound proof that builds the circuits.
    type Compound: CompoundProof<'static, Self::Vanilla, Self::Circuit>;

    /// The witness of the `i`-th partition `statement` proves: by default
    /// [`synthesize_witness`] of its circuit; a scheme may compute the same
    /// values faster, from the circuit or from the statement.
    fn witness(statement: &Statement<Self>, i: usize) -> Result<Witness, C2Error>
    where
        Self: Sized,
    {
        synthesize_witness(statement.circuit(i)?).map_err(|source| C2Error::Synthesis {
            partition: i,
            source,
        })
    }
}

/// Public parameters of a scheme.
pub type Params<K> = <<K as Scheme>::Vanilla as ProofScheme<'static>>::PublicParams;
/// Public inputs of a scheme.
pub type Inputs<K> = <<K as Scheme>::Vanilla as ProofScheme<'static>>::PublicInputs;
/// Vanilla proof of one partition of a scheme.
pub type Vanilla<K> = <<K as Scheme>::Vanilla as ProofScheme<'static>>::Proof;

/// One circuit of a scheme: the scheme at given public parameters.
pub struct CompoundCircuit<K: Scheme> {
    /// The public parameters (sector size, challenge and sector counts).
    pub params: Params<K>,
    scheme: PhantomData<fn() -> K>,
}

impl<K: Scheme> CompoundCircuit<K> {
    /// The circuit of `params`.
    pub fn new(params: Params<K>) -> Self {
        Self {
            params,
            scheme: PhantomData,
        }
    }
}

/// A circuit whose sector shape is erased: what callers that only know a
/// proof type hold (the shape is a type, chosen once by `with_shape!`).
pub trait AnyCircuit: Send + Sync {
    /// Its files in the parameter cache, named as filecoin-proofs names them.
    fn files(&self) -> CircuitFiles;

    /// Records the blank circuit.
    fn record(&self) -> Result<PrecompiledCircuit, C2Error>;

    /// Its PCE, recorded and saved on first use; `kind` names the proof
    /// type in logs.
    fn pce(&self, kind: &str) -> Result<PrecompiledCircuit, C2Error> {
        self.files().load_or_record(kind, || self.record())
    }

    /// Checks that its parameter files exist, then loads the PCE (recorded
    /// on first use) and opens the parameters (decoded once and kept when
    /// `resident`). `kind` names the proof type in messages.
    fn load(&self, kind: &str, resident: bool) -> Result<LoadedCircuit, C2Error> {
        let files = self.files();
        files.check_parameters(kind)?;
        LoadedCircuit::load(&files.id, || self.pce(kind), &files.params, resident)
    }
}

impl<K: Scheme> AnyCircuit for CompoundCircuit<K> {
    fn files(&self) -> CircuitFiles {
        CircuitFiles::named(
            <K::Compound as CacheableParameters<K::Circuit, _>>::cache_identifier(&self.params),
        )
    }

    fn record(&self) -> Result<PrecompiledCircuit, C2Error> {
        Ok(PrecompiledCircuit::extract(K::Compound::blank_circuit(
            &self.params,
        ))?)
    }
}

/// What one job proves: the public inputs, the public parameters and, for
/// each partition it proves, the partition's index and vanilla proof.
pub struct Statement<K: Scheme> {
    /// The public inputs of every partition.
    pub inputs: Inputs<K>,
    /// The public parameters.
    pub params: Params<K>,
    /// `(k, v_k)` for each partition proven, in output order.
    pub partitions: Vec<(usize, Vanilla<K>)>,
}

impl<K: Scheme> Statement<K> {
    /// The circuit of the `i`-th partition proven, with its values.
    pub fn circuit(&self, i: usize) -> Result<K::Circuit, C2Error> {
        let (k, vanilla) = &self.partitions[i];
        K::Compound::circuit(
            &self.inputs,
            Default::default(),
            vanilla,
            &self.params,
            Some(*k),
        )
        .map_err(C2Error::filecoin("building a partition circuit"))
    }

    /// The public inputs of the `i`-th partition proven.
    pub fn public_inputs(&self, i: usize) -> Result<Vec<Scalar>, C2Error> {
        let k = self.partitions[i].0;
        K::Compound::generate_public_inputs(&self.inputs, &self.params, Some(k))
            .map_err(C2Error::filecoin("deriving public inputs"))
    }
}

/// A proof kind: its input, read and checked, and its whole-proof check.
pub trait ProofKind: Sync {
    /// The compound proof it is.
    type Scheme: Scheme;

    /// How logs and errors name the input.
    fn label(&self) -> String;

    /// Number of partitions proven (known before the input is parsed).
    fn partitions(&self) -> usize;

    /// Parses the input and verifies its vanilla proofs: an input that
    /// cannot give a valid proof is refused before any partition is proven.
    fn open(&self) -> Result<Statement<Self::Scheme>, C2Error>;

    /// Verifies the whole proof (the partition proofs, concatenated) with
    /// filecoin-proofs' verifier; `None` when there is none for what was
    /// proven (each partition proof is verified anyway).
    fn verify(&self, proof: &[u8]) -> Result<Option<Duration>, C2Error>;
}

/// The proof of a kind's input, as filecoin-proofs returns it.
#[derive(Debug, Clone)]
pub struct KindProof {
    /// The partition proofs, [`PROOF_BYTES`] each, in partition order.
    pub proof: Vec<u8>,
    /// Number of partitions.
    pub partitions: usize,
    /// Whole-proof check with filecoin-proofs' verifier, when it ran.
    pub verify: Option<Duration>,
}

/// A [`ProofKind`] as an engine job.
pub struct KindJob<'a, P>(pub &'a P);

impl<P: ProofKind> Job for KindJob<'_, P> {
    type Statement = Statement<P::Scheme>;
    type Output = KindProof;
    type Error = C2Error;

    fn partitions(&self) -> usize {
        self.0.partitions()
    }

    fn label(&self) -> String {
        self.0.label()
    }

    fn open(&self) -> Result<Self::Statement, C2Error> {
        let statement = self.0.open()?;
        if statement.partitions.len() != self.0.partitions() {
            return Err(C2Error::VanillaProofs {
                what: format!(
                    "{} partition(s) of vanilla proofs where {} were expected",
                    statement.partitions.len(),
                    self.0.partitions()
                ),
            });
        }
        Ok(statement)
    }

    fn assign(
        &self,
        statement: &Self::Statement,
        partition: usize,
        _: &PrecompiledCircuit,
    ) -> Result<Assignment, C2Error> {
        let witness = P::Scheme::witness(statement, partition)?;
        Ok(Assignment {
            witness,
            public_inputs: statement.public_inputs(partition)?,
        })
    }

    fn finish(
        &self,
        _: Self::Statement,
        proofs: Vec<PartitionProof>,
    ) -> Result<KindProof, C2Error> {
        let mut proof = Vec::with_capacity(PROOF_BYTES * proofs.len());
        for proven in &proofs {
            proven.proof.write(&mut proof).expect("writing to memory");
        }
        let verify = self.0.verify(&proof)?;
        Ok(KindProof {
            proof,
            partitions: proofs.len(),
            verify,
        })
    }
}

/// The result of one input.
pub type KindResult = Result<Proven<KindProof>, C2Error>;

/// What a run of inputs of one kind produced.
pub struct KindRun {
    /// One result per input, in input order.
    pub results: Vec<KindResult>,
    /// The memory plan, with the peak of partitions in flight.
    pub memory: MemoryPlan,
    /// Backend name and path.
    pub backend: String,
    /// The devices proven on, with the partitions each proved.
    pub devices: Vec<DeviceUse>,
}

/// The first of `inputs`, once all are known to be of its proof type (one
/// circuit proves them all); `label` names an input in the error.
pub fn first_of_one_type<I, T: PartialEq + std::fmt::Display>(
    inputs: &[I],
    proof_type: impl Fn(&I) -> T,
    label: impl Fn(&I) -> String,
) -> Result<&I, C2Error> {
    let first = inputs.first().ok_or(C2Error::NoInputs)?;
    let expected = proof_type(first);
    match inputs.iter().find(|i| proof_type(i) != expected) {
        Some(other) => Err(C2Error::MixedProofTypes {
            path: label(other).into(),
            found: proof_type(other).to_string(),
            expected: expected.to_string(),
        }),
        None => Ok(first),
    }
}

/// Proves `inputs` on `circuit` (their kind's, loaded by
/// [`AnyCircuit::load`]): on `provers` when given (devices already set
/// up for it, as a daemon keeps them), else on the devices `engine` names.
/// `done` receives each input's result as soon as it is known.
pub fn prove<P: ProofKind>(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[P],
    engine: &EngineOptions,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &KindResult),
) -> Result<KindRun, C2Error> {
    let jobs: Vec<KindJob<'_, P>> = inputs.iter().map(KindJob).collect();
    let deliver = |i: usize, result: &KindResult| done(i, result);
    let run = match provers {
        Some(provers) => {
            proving_engine::run_with(circuit, provers, &jobs, engine, observer, deliver)?
        }
        None => proving_engine::run(circuit, &jobs, engine, observer, deliver)?,
    };
    Ok(KindRun {
        results: run.results,
        memory: run.memory,
        backend: run.backend,
        devices: run.devices,
    })
}
