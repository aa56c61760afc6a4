//! Every circuit this prover proves, named by proof type.
//!
//! Each proof type has one Groth16 circuit (non-interactive PoRep shares
//! the interactive one's): its parameter files, its PCE and how to load
//! it. Callers that handle any proof kind (`params gen`, the daemon, the
//! benchmarks) go through [`ProofCircuit`]; the shape-typed code stays in
//! [`crate::c2`], [`crate::post`] and [`crate::update`].

use std::fmt;

use filecoin_proofs::with_shape;
use pce_core::PrecompiledCircuit;
use proving_engine::LoadedCircuit;
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::cache::{CachedPce, CircuitFiles};
use crate::post::{PoStKind, PoStProofType};
use crate::proof_type::{parse_sector_size, ProofType};
use crate::update::UpdateProofType;
use crate::C2Error;

/// The circuit of a proof type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofCircuit {
    /// PoRep C2.
    Seal(ProofType),
    /// WindowPoSt or WinningPoSt.
    PoSt(PoStProofType),
    /// SnapDeals.
    Update(UpdateProofType),
}

impl From<ProofType> for ProofCircuit {
    fn from(proof_type: ProofType) -> Self {
        Self::Seal(proof_type)
    }
}

impl From<PoStProofType> for ProofCircuit {
    fn from(proof_type: PoStProofType) -> Self {
        Self::PoSt(proof_type)
    }
}

impl From<UpdateProofType> for ProofCircuit {
    fn from(proof_type: UpdateProofType) -> Self {
        Self::Update(proof_type)
    }
}

/// The proof kinds, as `params gen --kind` and the benchmarks name them.
pub const KINDS: [&str; 4] = ["porep", "window-post", "winning-post", "snap"];

impl ProofCircuit {
    /// The current proof type of `kind` (one of [`KINDS`]) at `size`
    /// (`2KiB`, `32GiB`, a number of bytes).
    pub fn of_kind(kind: &str, size: &str) -> Option<Self> {
        let size = parse_sector_size(size)?;
        match kind {
            "porep" => ProofType::interactive(size).map(Self::Seal),
            "window-post" => PoStProofType::current(PoStKind::Window, size).map(Self::PoSt),
            "winning-post" => PoStProofType::current(PoStKind::Winning, size).map(Self::PoSt),
            "snap" => UpdateProofType::of_size(size).map(Self::Update),
            _ => None,
        }
    }

    /// The size of the sectors it proves, in bytes.
    pub fn sector_size(&self) -> u64 {
        match self {
            Self::Seal(proof_type) => proof_type.sector_size,
            Self::PoSt(proof_type) => proof_type.sector_size,
            Self::Update(proof_type) => proof_type.sector_size,
        }
    }

    /// Its files in the parameter cache.
    pub fn files(&self) -> Result<CircuitFiles, C2Error> {
        match self {
            Self::Seal(t) => with_shape!(t.sector_size, seal_files, t),
            Self::PoSt(t) => Ok(t.circuit()?.files()),
            Self::Update(t) => Ok(t.circuit().files()),
        }
    }

    /// Its PCE, recorded and saved on first use.
    pub fn pce(&self) -> Result<PrecompiledCircuit, C2Error> {
        match self {
            Self::Seal(t) => with_shape!(t.sector_size, seal_pce, t),
            Self::PoSt(t) => t.circuit()?.pce(&self.to_string()),
            Self::Update(t) => t.circuit().pce(&self.to_string()),
        }
    }

    /// Its PCE from the cache, read and checked, or recorded and saved
    /// there when it is missing or unusable (with a warning saying why);
    /// whether it was recorded. Unlike [`Self::pce`], which proves on with
    /// a recording it could not save, a save that fails is an error: this
    /// is for filling the cache ahead of proving (`params record`).
    pub fn pce_in_cache(&self) -> Result<(PrecompiledCircuit, bool), C2Error> {
        match self
            .files()?
            .cached_or_recorded(&self.to_string(), || self.record())?
        {
            CachedPce::Loaded(pce) => Ok((pce, false)),
            CachedPce::Recorded { pce, saved } => saved.map(|()| (pce, true)),
        }
    }

    /// Records the blank circuit without touching the cache.
    pub fn record(&self) -> Result<PrecompiledCircuit, C2Error> {
        match self {
            Self::Seal(t) => with_shape!(t.sector_size, seal_record, t),
            Self::PoSt(t) => t.circuit()?.record(),
            Self::Update(t) => t.circuit().record(),
        }
    }

    /// Checks its parameter files and loads it (see [`crate::c2::load_circuit`]).
    pub fn load(&self, resident: bool) -> Result<LoadedCircuit, C2Error> {
        match self {
            Self::Seal(t) => crate::c2::load_circuit(*t, resident),
            Self::PoSt(t) => t.circuit()?.load(&self.to_string(), resident),
            Self::Update(t) => t.circuit().load(&self.to_string(), resident),
        }
    }
}

fn seal_files<Tree: 'static + MerkleTreeTrait>(t: &ProofType) -> Result<CircuitFiles, C2Error> {
    CircuitFiles::of::<Tree>(&t.config())
}

fn seal_pce<Tree: 'static + MerkleTreeTrait>(t: &ProofType) -> Result<PrecompiledCircuit, C2Error> {
    let config = t.config();
    CircuitFiles::of::<Tree>(&config)?.load_or_extract_pce::<Tree>(&config)
}

fn seal_record<Tree: 'static + MerkleTreeTrait>(
    t: &ProofType,
) -> Result<PrecompiledCircuit, C2Error> {
    Ok(PrecompiledCircuit::extract(
        crate::partition::blank_circuit::<Tree>(&t.config())?,
    )?)
}

impl fmt::Display for ProofCircuit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Seal(t) => write!(f, "{t}"),
            Self::PoSt(t) => write!(f, "{t}"),
            Self::Update(t) => write!(f, "SnapDeals {t}"),
        }
    }
}
