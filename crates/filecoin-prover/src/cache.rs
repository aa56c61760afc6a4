//! The parameter cache shared with filecoin-proofs, and the PCE files in it.
//!
//! Groth16 parameters live where filecoin-proofs looks for them:
//! `$FIL_PROOFS_PARAMETER_CACHE` (default `/var/tmp/filecoin-proof-parameters`),
//! named `v28-<circuit id>.params` and `.vk`, the circuit id depending on
//! the sector shape and PoRep variant. The pre-compiled circuit of each
//! circuit id is kept next to them as `pce-v1-v28-<circuit id>.pce`:
//! extracted from the blank circuit on first use, checksummed, written
//! atomically, and rebuilt (with a warning) when it is corrupt; one that
//! cannot be read (another user's) is an error, neither replaced nor
//! recorded at each run.
//!
//! Both versions are part of the name: the PCE format's (`v1`), so that two
//! versions of the prover sharing a cache never read each other's files,
//! and the parameters' (`v28`, filecoin-proofs' own), since the circuit
//! id is a hash of the public parameters alone: a circuit changed with new
//! parameters under the same id must not be proven from the recording of
//! the old one. The files of older versions (4 GiB each at 32 GiB) are
//! removed when the current one is saved (not at each load: an older
//! prover still in use on the same cache would record its own again and
//! again).

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use filecoin_proofs::PoRepConfig;
use pce_core::{FormatError, PceError, PrecompiledCircuit};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::parameter_cache::{
    parameter_cache_params_path, parameter_cache_verifying_key_path, VERSION as PARAMETER_VERSION,
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
        let pce = params.with_file_name(PceName::current(&id).to_string());
        Self {
            id,
            params,
            vk,
            pce,
        }
    }

    /// Refuses to start without the parameter files of the circuit, with a
    /// `.vk` that is not a whole verifying key, or with one that is not the
    /// parameters' own key: a parameter file begins with its verifying key,
    /// written as the `.vk` file is.
    pub fn check_parameters(&self, proof_type: &str) -> Result<(), C2Error> {
        for path in [&self.params, &self.vk] {
            let exists = path
                .try_exists()
                .map_err(C2Error::io("looking for the parameter file", path))?;
            if !exists {
                return Err(C2Error::MissingParameters {
                    path: path.clone(),
                    proof_type: proof_type.to_owned(),
                });
            }
        }
        // An empty or cut-short key (an interrupted download) would equal
        // the parameters' first bytes; filecoin-proofs' verifier would then
        // fail on it after the whole proof.
        groth16_prover::read_verifying_key(&self.vk).map_err(|e| C2Error::Engine(e.into()))?;
        let vk = std::fs::read(&self.vk).map_err(C2Error::io("reading", &self.vk))?;
        let mut own = vec![0u8; vk.len()];
        let read = File::open(&self.params).and_then(|mut params| params.read_exact(&mut own));
        match read {
            Ok(()) if own == vk => Ok(()),
            // Shorter than its key: reported as truncated when loaded.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(()),
            Err(e) => Err(C2Error::io("reading", &self.params)(e)),
            Ok(()) => Err(C2Error::ParametersMismatch {
                params: self.params.clone(),
                vk: self.vk.clone(),
            }),
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
    /// unusable. A recording that cannot be saved still serves the caller,
    /// with a warning: a cache shared read-only (a container's mount) must
    /// not stop proving.
    pub fn load_or_record(
        &self,
        kind: &str,
        record: impl FnOnce() -> Result<PrecompiledCircuit, C2Error>,
    ) -> Result<PrecompiledCircuit, C2Error> {
        match self.cached_or_recorded(kind, record)? {
            CachedPce::Loaded(pce) => Ok(pce),
            CachedPce::Recorded { pce, saved: Ok(()) } => Ok(pce),
            CachedPce::Recorded { pce, saved: Err(e) } => {
                warn!(
                    "{}; proving with the circuit recorded in memory (each run records it \
                     again until the cache is writable)",
                    proving_engine::chain(&e)
                );
                Ok(pce)
            }
        }
    }

    /// The PCE from the cache, read and checked, or recorded with `record`
    /// when it is missing or unusable (with a warning saying why), with the
    /// outcome of saving it: whether a save that failed is an error is the
    /// caller's choice.
    pub fn cached_or_recorded(
        &self,
        kind: &str,
        record: impl FnOnce() -> Result<PrecompiledCircuit, C2Error>,
    ) -> Result<CachedPce, C2Error> {
        match PrecompiledCircuit::load(&self.pce) {
            Ok(pce) => return Ok(CachedPce::Loaded(pce)),
            Err(PceError::Format(FormatError::Io { source, .. }))
                if source.kind() == std::io::ErrorKind::NotFound => {}
            // A file this process may not read (another user's, 0600) is
            // not replaced, nor recorded again at every run: the operator
            // is told.
            Err(PceError::Format(FormatError::Io { path, source }))
                if !matches!(
                    source.kind(),
                    std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidData
                ) =>
            {
                return Err(C2Error::io("reading the circuit's PCE file", &path)(source));
            }
            Err(e) => warn!(
                "{}; extracting the circuit again",
                proving_engine::chain(&e)
            ),
        }
        let start = Instant::now();
        info!(id = %self.id, "recording the {kind} circuit (once per circuit)");
        let pce = record()?;
        let saved = match self.pce.parent() {
            Some(dir) => std::fs::create_dir_all(dir)
                .map_err(C2Error::io("creating the parameter cache directory", dir)),
            None => Ok(()),
        }
        .and_then(|()| Ok(pce.save(&self.pce)?));
        if saved.is_ok() {
            info!(elapsed = ?start.elapsed(), path = %self.pce.display(), "PCE saved");
            self.remove_older_versions();
        }
        Ok(CachedPce::Recorded { pce, saved })
    }

    /// Removes this circuit's PCE files of older versions (of the format or
    /// of the parameters), which no version of the prover from this one on
    /// reads. An older prover still proving from one keeps its open file;
    /// one started later records its circuit again. A file that cannot be
    /// removed (a read-only cache) is left, with a warning.
    fn remove_older_versions(&self) {
        let Some(dir) = self.pce.parent() else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let current = PceName::current(&self.id);
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(name) = file_name.to_str().and_then(PceName::parse) else {
                continue;
            };
            if name.id != self.id || !name.is_older_than(&current) {
                continue;
            }
            let old = entry.path();
            match std::fs::remove_file(&old) {
                Ok(()) => info!(path = %old.display(), "removed the PCE file of an older version"),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    warn!(path = %old.display(), error = %e, "could not remove the PCE file of an older version")
                }
            }
        }
    }
}

/// The name of a PCE file in the parameter cache: `pce-v<format>-v<params>-<id>.pce`,
/// or `pce-v<format>-<id>.pce` as the versions before the parameters'
/// version was part of it wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PceName<'a> {
    /// The PCE format's version.
    format: u32,
    /// filecoin-proofs' parameter version; `None` in the older names.
    params: Option<usize>,
    /// The circuit id.
    id: &'a str,
}

impl<'a> PceName<'a> {
    /// The name this version of the prover reads and writes for circuit `id`.
    fn current(id: &'a str) -> Self {
        Self {
            format: pce_core::FORMAT_VERSION,
            params: Some(PARAMETER_VERSION),
            id,
        }
    }

    /// The parts of a PCE file's name; `None` for other files.
    fn parse(name: &'a str) -> Option<Self> {
        let rest = name.strip_prefix("pce-v")?.strip_suffix(".pce")?;
        let (format, rest) = rest.split_once('-')?;
        let format = format.parse().ok()?;
        // An id never starts with `v` and a digit: filecoin-proofs' ids
        // start with the proof's name.
        let versioned = rest
            .strip_prefix('v')
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(params, id)| Some((params.parse().ok()?, id)));
        let (params, id) = match versioned {
            Some((params, id)) => (Some(params), id),
            None => (None, rest),
        };
        Some(Self { format, params, id })
    }

    /// Whether a prover writing `current` never reads this file: an older
    /// format, or the same format with older (or no) parameter version.
    fn is_older_than(&self, current: &Self) -> bool {
        (self.format, self.params.unwrap_or(0)) < (current.format, current.params.unwrap_or(0))
    }
}

impl std::fmt::Display for PceName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.params {
            Some(params) => write!(f, "pce-v{}-v{params}-{}.pce", self.format, self.id),
            None => write!(f, "pce-v{}-{}.pce", self.format, self.id),
        }
    }
}

/// A pre-compiled circuit as [`CircuitFiles::cached_or_recorded`] found it.
pub enum CachedPce {
    /// Read from the cache and checked.
    Loaded(PrecompiledCircuit),
    /// Recorded from the blank circuit, and whether it could be saved.
    Recorded {
        /// The recording.
        pce: PrecompiledCircuit,
        /// The outcome of writing it into the cache.
        saved: Result<(), C2Error>,
    },
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use filecoin_proofs::with_shape;

    use super::*;
    use crate::proof_type::{ProofType, Variant, SECTOR_SIZES};

    fn id_of<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> String {
        CircuitFiles::of::<Tree>(config).unwrap().id
    }

    /// `x · x = y`, y public.
    struct Square;

    impl bellpepper_core::Circuit<blstrs::Scalar> for Square {
        fn synthesize<CS: bellpepper_core::ConstraintSystem<blstrs::Scalar>>(
            self,
            cs: &mut CS,
        ) -> Result<(), bellpepper_core::SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(ff::Field::ONE))?;
            let y = cs.alloc_input(|| "y", || Ok(ff::Field::ONE))?;
            cs.enforce(|| "x * x = y", |lc| lc + x, |lc| lc + x, |lc| lc + y);
            Ok(())
        }
    }

    fn square_files(dir: &Path) -> CircuitFiles {
        CircuitFiles {
            id: "square".into(),
            params: dir.join("square.params"),
            vk: dir.join("square.vk"),
            pce: dir.join(PceName::current("square").to_string()),
        }
    }

    /// A cache where the PCE cannot be written (here procfs, where not
    /// even root creates files; in production, a read-only mount): the
    /// recording serves the run instead of failing it.
    #[test]
    fn a_pce_that_cannot_be_saved_is_used_from_memory() {
        let files = square_files(Path::new("/proc/self"));
        let recorded = files
            .cached_or_recorded("test", || Ok(PrecompiledCircuit::extract(Square)?))
            .unwrap();
        let CachedPce::Recorded { pce, saved } = recorded else {
            panic!("nothing to load");
        };
        assert_eq!(pce.num_constraints(), 3, "one, and a row per input");
        assert!(saved.is_err() && !files.pce.exists());
        let served = files.load_or_record("test", || Ok(PrecompiledCircuit::extract(Square)?));
        assert_eq!(served.unwrap().num_constraints(), 3);
    }

    /// A PCE file that cannot be read (another user's; here a directory
    /// in its place) is an error naming it: recording the circuit again
    /// at every run, and replacing the file where the directory allows,
    /// would hide it at the cost of minutes and gigabytes each time.
    #[test]
    fn a_pce_that_cannot_be_read_is_an_error_and_not_recorded_again() {
        let dir = tempfile::tempdir().unwrap();
        let files = square_files(dir.path());
        std::fs::create_dir(&files.pce).unwrap();
        let error = files
            .load_or_record("test", || panic!("recorded again"))
            .unwrap_err();
        let said = proving_engine::chain(&error);
        assert!(said.contains(&files.pce.display().to_string()), "{said}");
        assert!(files.pce.is_dir(), "nothing written in its place");
    }

    /// Once the current PCE is saved, the files of older versions are
    /// removed: older formats, older parameters, and the names from before
    /// the parameters' version was in them. Other circuits' files and newer
    /// versions' are left, and so is an older one written again later (an
    /// older prover on the same cache).
    #[test]
    fn older_versions_of_the_pce_are_removed_when_the_current_one_is_saved() {
        let dir = tempfile::tempdir().unwrap();
        let files = square_files(dir.path());
        let current = PceName::current("square");
        let named = |format: u32, params: Option<usize>, id: &str| {
            dir.path().join(PceName { format, params, id }.to_string())
        };
        let (format, params) = (current.format, PARAMETER_VERSION);
        let older = [
            named(format - 1, Some(params), "square"),
            named(format - 1, Some(params + 1), "square"),
            named(format, Some(params - 1), "square"),
            named(format, None, "square"),
            named(format - 1, None, "square"),
        ];
        let kept = [
            named(format + 1, Some(params), "square"),
            named(format, Some(params + 1), "square"),
            named(format - 1, None, "cube"),
            named(format, Some(params - 1), "cube"),
            dir.path().join("v28-square.params"),
        ];
        for path in older.iter().chain(&kept) {
            std::fs::write(path, b"an older recording").unwrap();
        }
        let record = || Ok(PrecompiledCircuit::extract(Square)?);
        files.load_or_record("test", record).unwrap();
        assert!(files.pce.exists());
        for path in &older {
            assert!(!path.exists(), "{} left", path.display());
        }
        for path in &kept {
            assert!(path.exists(), "{} removed", path.display());
        }

        std::fs::write(&older[0], b"an older recording").unwrap();
        files
            .load_or_record("test", || panic!("recorded again"))
            .unwrap();
        assert!(older[0].exists(), "not removed at a load");
    }

    /// A PCE file's name carries both versions and the circuit id, which
    /// the parser gives back, also from the older names without the
    /// parameters' version; other files are not PCE files.
    #[test]
    fn pce_file_names_are_parsed_back() {
        let id = "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-82a3";
        let current = PceName::current(id);
        let name = current.to_string();
        assert_eq!(
            name,
            format!(
                "pce-v{}-v{PARAMETER_VERSION}-{id}.pce",
                pce_core::FORMAT_VERSION
            )
        );
        assert_eq!(PceName::parse(&name), Some(current.clone()));
        let legacy = format!("pce-v1-{id}.pce");
        let parsed = PceName::parse(&legacy).unwrap();
        assert_eq!((parsed.format, parsed.params, parsed.id), (1, None, id));
        assert!(parsed.is_older_than(&current));
        for other in [
            format!("v{PARAMETER_VERSION}-{id}.params"),
            format!("pce-vx-{id}.pce"),
            format!("pce-v1-{id}.pce.tmp"),
            "pce-v1.pce".to_owned(),
        ] {
            assert_eq!(PceName::parse(&other), None, "{other}");
        }
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
