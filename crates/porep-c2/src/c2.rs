//! `c2`: from a C1 file to the sector proof, with every check.
//!
//! Resolves the proof type and sector shape, loads (or records) the PCE and
//! the parameters from the cache, loads the backend, proves every partition
//! ([`crate::prove`]), verifies each partition proof against the C1
//! output's public inputs and, when the prover and sector ids are known,
//! the whole proof with filecoin-proofs' `verify_seal`.

use std::time::{Duration, Instant};

use backend_api::Backend;
use blstrs::Scalar;
use ff::Field;
use filecoin_proofs::{verify_seal, with_shape, PoRepConfig};
use groth16_prover::{Bases, Prover, SrsFile, Verification};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

use crate::c1::C1Input;
use crate::cache::CircuitFiles;
use crate::prove::{prove_sector, StageTimes};
use crate::C2Error;

/// How to prove.
#[derive(Debug, Clone)]
pub struct C2Options {
    /// Backend name or path.
    pub backend: String,
    /// Device index.
    pub device: u32,
    /// Partitions whose witnesses may be in memory at once.
    pub partitions_in_flight: usize,
    /// Prover id, for `verify_seal`.
    pub prover_id: Option<[u8; 32]>,
    /// Sector number, for `verify_seal` (lotus-bench files carry it).
    pub sector_id: Option<u64>,
    /// Fixed `(r, s)` per partition (tests comparing with bellperson);
    /// random when `None`.
    pub randomness: Option<Vec<(Scalar, Scalar)>>,
}

/// What a C2 run produced and measured.
#[derive(Debug, Clone)]
pub struct C2Outcome {
    /// The proof bytes: 192 per partition.
    pub proof: Vec<u8>,
    /// The proof type proven.
    pub proof_type: String,
    /// Number of partitions.
    pub partitions: usize,
    /// Backend name and device name.
    pub backend: String,
    /// Device used.
    pub device: String,
    /// Loading or recording the PCE.
    pub pce_time: Duration,
    /// Opening the parameters (and decoding them all, for several
    /// partitions; a single partition decodes each query as it is used).
    pub params_time: Duration,
    /// Witness, proving and verification times.
    pub stages: StageTimes,
    /// Whole-proof check with filecoin-proofs' `verify_seal`, when it ran.
    pub verify_seal: Option<Duration>,
}

/// The prover id lotus derives from a miner actor id: the ID address
/// payload (the id as an unsigned LEB128 varint), zero padded.
pub fn prover_id_of_miner(miner: u64) -> [u8; 32] {
    let mut id = [0u8; 32];
    let (mut value, mut i) = (miner, 0);
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        id[i] = if value == 0 { byte } else { byte | 0x80 };
        i += 1;
        if value == 0 {
            return id;
        }
    }
}

/// Proves the sector of `input`.
pub fn run(input: &C1Input, options: &C2Options) -> Result<C2Outcome, C2Error> {
    let config = input.proof_type.config();
    with_shape!(
        input.proof_type.sector_size,
        run_shape,
        input,
        &config,
        options
    )
}

fn run_shape<Tree: 'static + MerkleTreeTrait>(
    input: &C1Input,
    config: &PoRepConfig,
    options: &C2Options,
) -> Result<C2Outcome, C2Error> {
    let files = CircuitFiles::of::<Tree>(config)?;
    for path in [&files.params, &files.vk] {
        if !path.exists() {
            return Err(C2Error::MissingParameters {
                path: path.clone(),
                proof_type: input.proof_type.to_string(),
            });
        }
    }
    let c1 = input.phase1_output::<Tree>()?;
    let partitions = c1.vanilla_proofs.len();

    let start = Instant::now();
    let pce = files.load_or_extract_pce::<Tree>(config)?;
    let pce_time = start.elapsed();
    // One partition: decode each query when its MSM runs and drop it after
    // (least memory). Several: decode everything once and keep it.
    let start = Instant::now();
    let file = SrsFile::open(&files.params)?;
    let srs = if partitions > 1 {
        Some(file.load()?)
    } else {
        None
    };
    let bases = srs.as_ref().map_or(Bases::Streamed(&file), Bases::Resident);
    let params_time = start.elapsed();

    let backend = Backend::load(&options.backend)?;
    let device_info = backend
        .devices()?
        .into_iter()
        .find(|d| d.index == options.device)
        .ok_or_else(|| C2Error::NoSuchDevice {
            backend: backend.name().to_owned(),
            index: options.device,
        })?;
    let device = backend.open(options.device)?;
    let prover = Prover::new(&device, bases, Verification::Verify)?;
    let randomness = match &options.randomness {
        Some(fixed) => fixed.clone(),
        None => (0..partitions)
            .map(|_| {
                (
                    Scalar::random(rand::rngs::OsRng),
                    Scalar::random(rand::rngs::OsRng),
                )
            })
            .collect(),
    };
    let sector = prove_sector(
        config,
        &c1,
        &pce,
        &prover,
        &file.vk,
        options.partitions_in_flight,
        &randomness,
    )?;

    let sector_id = options.sector_id.or(input.sector_num);
    let verify_seal_time = match (options.prover_id, sector_id) {
        (Some(prover_id), Some(sector_id)) if !input.proof_type.is_non_interactive() => {
            let start = Instant::now();
            let valid = verify_seal::<Tree>(
                config,
                c1.comm_r,
                c1.comm_d,
                prover_id,
                SectorId::from(sector_id),
                c1.ticket,
                c1.seed,
                &sector.bytes,
            )
            .map_err(C2Error::filecoin("verify_seal"))?;
            if !valid {
                return Err(C2Error::VerifySealRejected);
            }
            Some(start.elapsed())
        }
        _ => None,
    };
    Ok(C2Outcome {
        proof: sector.bytes,
        proof_type: input.proof_type.to_string(),
        partitions,
        backend: format!("{} ({})", backend.name(), backend.path().display()),
        device: device_info.name,
        pce_time,
        params_time,
        stages: sector.times,
        verify_seal: verify_seal_time,
    })
}

#[cfg(test)]
mod tests {
    use super::prover_id_of_miner;

    #[test]
    fn prover_id_is_the_id_address_payload() {
        // f01000: LEB128 of 1000 is e8 07.
        assert_eq!(prover_id_of_miner(1000)[..3], [0xe8, 0x07, 0]);
        assert_eq!(prover_id_of_miner(5)[..2], [5, 0]);
        assert_eq!(prover_id_of_miner(0), [0; 32]);
    }
}
