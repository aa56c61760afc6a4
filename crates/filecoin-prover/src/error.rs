//! Errors of the Filecoin-specific steps.

use std::error::Error;

/// Why a Filecoin-specific step failed.
#[derive(Debug, thiserror::Error)]
pub enum C2Error {
    /// A filecoin-proofs or storage-proofs call failed.
    #[error("{step}")]
    Filecoin {
        /// What was being done.
        step: &'static str,
        /// The error reported by filecoin-proofs, with its chain.
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// The engine could not prove (backend, memory budget, a partition).
    #[error(transparent)]
    Engine(#[from] proving_engine::EngineError),
    /// The pre-compiled circuit could not be made, read or evaluated.
    #[error(transparent)]
    Pce(#[from] pce_core::PceError),
    /// Test parameters could not be generated.
    #[error("generating test parameters")]
    Setup(#[from] groth16_prover::setup::SetupError),
    /// Witness generation of a partition failed.
    #[error("partition {partition}: witness generation")]
    Synthesis {
        /// The partition.
        partition: usize,
        /// The circuit's error.
        #[source]
        source: bellpepper_core::SynthesisError,
    },
    /// A partition's witness, generated in parallel parts (PoRep's
    /// challenges, PoSt's sectors) or checked against storage-proofs'
    /// circuit, does not have its circuit's layout.
    #[error("partition {partition}: the witness does not fit its circuit: {what}")]
    WitnessLayout {
        /// The partition.
        partition: usize,
        /// What did not fit.
        what: String,
    },
    /// The C1 output has not the number of partitions of its proof type.
    #[error("the C1 output has {found} partition(s), {proof_type} has {expected}")]
    PartitionCount {
        /// The proof type.
        proof_type: String,
        /// Partitions of the proof type.
        expected: usize,
        /// Partitions in the C1 output.
        found: usize,
    },
    /// The C1 file is unusable.
    #[error(transparent)]
    C1(#[from] crate::c1::C1Error),
    /// The parameters of the circuit are not in the cache.
    #[error("missing parameters for {proof_type}: {path} does not exist; fetch the published parameters (`curio fetch-params SIZE` or `lotus fetch-params SIZE`); for test sectors only, `pce-prover params gen` writes insecure ones")]
    MissingParameters {
        /// The file looked for.
        path: std::path::PathBuf,
        /// The proof type.
        proof_type: String,
    },
    /// A circuit's verifying key is there without its parameters, and
    /// test parameters were asked for: the key may be the published one.
    #[error("{present} exists but {absent} does not: refusing to write insecure test parameters over a file that may be the published one (a lotus node keeps the published verifying keys alone); fetch the missing file, or generate both again with --force")]
    PartialParameters {
        /// The verifying key, which exists.
        present: std::path::PathBuf,
        /// The parameter file, which does not.
        absent: std::path::PathBuf,
    },
    /// The verifying key beside the parameters is not theirs (a download,
    /// or a regeneration, stopped between the two files): proofs would be
    /// checked against the one, and the chain against the other.
    #[error("{vk} is not the verifying key of {params}: fetch (or generate) both files again")]
    ParametersMismatch {
        /// The parameter file.
        params: std::path::PathBuf,
        /// The verifying key file.
        vk: std::path::PathBuf,
    },
    /// The C1 output's vanilla proofs do not verify against its own public
    /// inputs: no proof of it could.
    #[error("the C1 output's vanilla proofs do not verify against its replica id, commitments and seed (a corrupted output, or one of another proof type or porep id)")]
    InvalidVanillaProofs,
    /// The vanilla proofs of a PoSt or SnapDeals input are unusable or do
    /// not verify: no proof of them could.
    #[error("the vanilla proofs cannot be proven: {what}")]
    VanillaProofs {
        /// What is wrong with them.
        what: String,
    },
    /// filecoin-proofs or storage-proofs panicked on input data (a field
    /// element out of range, a Merkle path of the wrong arity): the data is
    /// malformed, and saying so beats unwinding through the prover.
    #[error("the {what} are malformed: filecoin-proofs failed on them ({panic})")]
    Malformed {
        /// The data, e.g. "C1 output's vanilla proofs", and where it came
        /// from where known.
        what: String,
        /// What the panic said.
        panic: String,
    },
    /// A vanilla proof file could not be decoded.
    #[error("{path}: not a vanilla proof of {proof_type}: {what}")]
    BadVanillaProof {
        /// The file (or request field) it came from.
        path: std::path::PathBuf,
        /// The proof type it was read as.
        proof_type: String,
        /// What the decoder said.
        what: String,
    },
    /// One of filecoin-proofs' verifiers rejected a whole proof.
    #[error("filecoin-proofs' {verifier} rejected the proof")]
    Rejected {
        /// The verifier.
        verifier: &'static str,
    },
    /// The prover and sector ids given with a C1 output do not derive its
    /// replica id: `verify_seal` would reject any proof of it with them, so
    /// nothing is proven.
    #[error("the prover id and sector id {sector_id} do not derive the C1 output's replica id \
             (it was sealed for another miner or sector number): verify_seal would reject its proof{hint}")]
    IdsMismatch {
        /// The sector id given.
        sector_id: u64,
        /// "; the file names sector N" when the C1 file names another sector.
        hint: String,
    },
    /// filecoin-proofs' `verify_seal` rejected the proof.
    #[error("filecoin-proofs' verify_seal rejected the proof")]
    VerifySealRejected,
    /// The SnarkPack aggregate does not verify against the public inputs
    /// of the C1 output.
    #[error("the SnarkPack aggregate does not verify against the public inputs of the C1 output")]
    AggregateRejected,
    /// SnarkPack's SRS, needed to aggregate non-interactive proofs, is not
    /// in the parameter cache.
    #[error("{proof_type} proofs are aggregated with SnarkPack, which needs the SRS {path}, and it does not exist. \
             The production file comes with the Filecoin proof parameters (e.g. `paramfetch` or `lotus fetch-params`); \
             `pce-prover params gen --sector-size 2KiB --non-interactive` writes an insecure one, for tests only")]
    MissingSrs {
        /// The file looked for.
        path: std::path::PathBuf,
        /// The proof type.
        proof_type: String,
    },
    /// SnarkPack's SRS is unreadable, truncated or too short.
    #[error("SnarkPack SRS {path}: {what}")]
    BadSrs {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// A sector's proof cannot go into an aggregate.
    #[error("{path} (the proof of {c1}): {what}")]
    AggregateInput {
        /// The proof's file.
        path: std::path::PathBuf,
        /// The sector's C1 file.
        c1: std::path::PathBuf,
        /// What is wrong.
        what: String,
    },
    /// Too few or too many sectors for one aggregate.
    #[error("{sectors} sector(s) cannot be aggregated into one proof: {what}")]
    AggregateCount {
        /// Sectors given.
        sectors: usize,
        /// The limit.
        what: String,
    },
    /// No C1 output was given.
    #[error("no C1 output to prove")]
    NoInputs,
    /// Sectors proven together must share one circuit (one PCE, one SRS).
    #[error("{path}: {found} differs from {expected}, the proof type of the first input; prove each proof type in its own run")]
    MixedProofTypes {
        /// The file of another proof type.
        path: std::path::PathBuf,
        /// Its proof type.
        found: String,
        /// The first input's proof type.
        expected: String,
    },
    /// A file or directory operation failed.
    #[error("{step} {}", path.display())]
    Io {
        /// What was being done.
        step: &'static str,
        /// The file or directory it was done to.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl C2Error {
    /// Wraps an error of filecoin-proofs (which reports `anyhow` chains),
    /// keeping its chain as the source.
    pub fn filecoin(step: &'static str) -> impl FnOnce(anyhow::Error) -> Self {
        move |e| C2Error::Filecoin {
            step,
            source: e.into(),
        }
    }

    /// Runs `step`, a call into filecoin-proofs on data from outside (a C1
    /// output, vanilla proofs), turning a panic of that library into
    /// [`C2Error::Malformed`]: its verifiers assert on some malformed
    /// inputs instead of returning an error.
    pub fn unless_malformed<T>(
        what: impl FnOnce() -> String,
        step: impl FnOnce() -> Result<T, C2Error>,
    ) -> Result<T, C2Error> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(step)).unwrap_or_else(|panic| {
            Err(C2Error::Malformed {
                what: what(),
                panic: proving_engine::panic_message(&*panic),
            })
        })
    }

    /// Wraps an I/O error of `step` on `path`.
    pub fn io(step: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_owned();
        move |source| C2Error::Io { step, path, source }
    }
}
