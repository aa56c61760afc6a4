//! The parameter cache shared with filecoin-proofs, and the PCE files in it.
//!
//! Groth16 parameters live where filecoin-proofs looks for them:
//! `$FIL_PROOFS_PARAMETER_CACHE` (default `/var/tmp/filecoin-proof-parameters`),
//! named `v28-<circuit id>.params` and `.vk`, the circuit id depending on
//! the sector shape and PoRep variant. The pre-compiled circuit of each
//! circuit id is kept next to them as `pce-v1-<circuit id>.pce`: extracted
//! from the blank circuit on first use, checksummed, written atomically, and
//! rebuilt (with a warning) when it is corrupt or from another format version.

use std::path::PathBuf;
use std::time::Instant;

use filecoin_proofs::PoRepConfig;
use pce_core::{FormatError, PceError, PrecompiledCircuit};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::parameter_cache::{
    parameter_cache_params_path, parameter_cache_verifying_key_path,
};
use tracing::{info, warn};

use crate::partition::blank_circuit;
use crate::C2Error;

/// The files of one circuit in the parameter cache.
#[derive(Debug, Clone)]
pub struct CircuitFiles {
    /// filecoin-proofs' circuit identifier.
    pub id: String,
    /// Groth16 parameters (`.params`).
    pub params: PathBuf,
    /// Verifying key (`.vk`).
    pub vk: PathBuf,
    /// Pre-compiled circuit (`.pce`).
    pub pce: PathBuf,
}

impl CircuitFiles {
    /// The cache paths of the PoRep circuit of `config`.
    pub fn of<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<Self, C2Error> {
        let id = config
            .get_cache_identifier::<Tree>()
            .map_err(C2Error::filecoin("circuit identifier"))?;
        Ok(Self::named(id))
    }

    /// The cache paths of the circuit filecoin-proofs identifies as `id`.
    pub fn named(id: String) -> Self {
        let params = parameter_cache_params_path(&id);
        let vk = parameter_cache_verifying_key_path(&id);
        let pce = params.with_file_name(format!("pce-v{}-{id}.pce", pce_core::FORMAT_VERSION));
        Self {
            id,
            params,
            vk,
            pce,
        }
    }

    /// Refuses to start without the parameter files of the circuit.
    pub fn check_parameters(&self, proof_type: &str) -> Result<(), C2Error> {
        match [&self.params, &self.vk].into_iter().find(|p| !p.exists()) {
            Some(missing) => Err(C2Error::MissingParameters {
                path: missing.clone(),
                proof_type: proof_type.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Loads the PCE of the PoRep circuit of `config`, or records and
    /// saves it when it is missing or unusable.
    pub fn load_or_extract_pce<Tree: 'static + MerkleTreeTrait>(
        &self,
        config: &PoRepConfig,
    ) -> Result<PrecompiledCircuit, C2Error> {
        self.load_or_record("PoRep", || {
            Ok(PrecompiledCircuit::extract(blank_circuit::<Tree>(config)?)?)
        })
    }

    /// Loads the PCE, or records it with `record` (from the blank circuit
    /// of the proof kind `kind`) and saves it when it is missing or
    /// unusable.
    pub fn load_or_record(
        &self,
        kind: &str,
        record: impl FnOnce() -> Result<PrecompiledCircuit, C2Error>,
    ) -> Result<PrecompiledCircuit, C2Error> {
        match PrecompiledCircuit::load(&self.pce) {
            Ok(pce) => return Ok(pce),
            Err(PceError::Format(FormatError::Io { source, .. }))
                if source.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => warn!(
                "{}; extracting the circuit again",
                proving_engine::chain(&e)
            ),
        }
        let start = Instant::now();
        info!(id = %self.id, "recording the {kind} circuit (once per circuit)");
        let pce = record()?;
        if let Some(dir) = self.pce.parent() {
            std::fs::create_dir_all(dir)
                .map_err(C2Error::io("creating the parameter cache directory"))?;
        }
        pce.save(&self.pce)?;
        info!(elapsed = ?start.elapsed(), path = %self.pce.display(), "PCE saved");
        Ok(pce)
    }
}

#[cfg(test)]
mod tests {
    use filecoin_proofs::with_shape;

    use super::*;
    use crate::proof_type::{ProofType, Variant, SECTOR_SIZES};

    fn id_of<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> String {
        CircuitFiles::of::<Tree>(config).unwrap().id
    }

    /// filecoin-proofs chose the non-interactive partition counts so that
    /// each partition has the challenges of an interactive one: both proof
    /// types of a size share the circuit, its parameter files and its PCE.
    #[test]
    fn non_interactive_porep_shares_the_interactive_circuit_files() {
        for &(size, name) in &SECTOR_SIZES {
            let interactive = ProofType::interactive(size).unwrap();
            let ni = ProofType {
                variant: Variant::NonInteractive,
                ..interactive
            };
            let (a, b) = (interactive.config(), ni.config());
            assert_ne!(a.partitions.0, b.partitions.0);
            let ids: Vec<String> = [a, b]
                .iter()
                .map(|config| with_shape!(size, id_of, config))
                .collect();
            assert_eq!(ids[0], ids[1], "{name}");
        }
    }
}
