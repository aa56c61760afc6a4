//! `c2`: from commit-phase-1 outputs to sector proofs, with every check.
//!
//! Setup, then the engine: the inputs' proof type must be one (one
//! circuit: one PCE, one parameter set); its parameter files, and for
//! non-interactive PoRep SnarkPack's SRS, must exist before anything is
//! loaded; then the circuit is loaded (the PCE recorded on first use, see
//! [`crate::cache`]) and each sector goes to the engine as a
//! [`SectorJob`]. One partition in all streams the parameters (least
//! memory); more decode them once and share them.

use std::time::Duration;

use filecoin_proofs::{with_shape, PoRepConfig};
use proving_engine::{
    DeviceProver, DeviceUse, EngineOptions, LoadedCircuit, MemoryPlan, Observer, Proven, StageTimes,
};
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::aggregate;
use crate::c1::C1Input;
use crate::cache::CircuitFiles;
use crate::proof_type::ProofType;
use crate::sector::{SectorJob, SectorProof};
use crate::C2Error;

/// How to prove.
#[derive(Debug, Clone)]
pub struct C2Options {
    /// Backend, device, concurrency, memory budget, fixed randomness.
    pub engine: EngineOptions,
    /// Prover id, for `verify_seal`.
    pub prover_id: Option<[u8; 32]>,
    /// Sector number, for `verify_seal` (lotus-bench files carry it);
    /// ignored when several sectors are proven at once.
    pub sector_id: Option<u64>,
    /// Return the partition proofs alone, as filecoin-proofs'
    /// `seal_commit_phase2_circuit_proofs` does: a non-interactive sector's
    /// are then not aggregated (nor is SnarkPack's SRS needed), so that
    /// they can be aggregated with other sectors' later. An interactive
    /// sector's proof is its partition proofs either way.
    pub circuit_proofs: bool,
}

/// A sector's result as it is reported during a run.
pub type SectorResult = Result<Proven<SectorProof>, C2Error>;

/// What a C2 run produced and measured for one sector.
#[derive(Debug, Clone)]
pub struct C2Outcome {
    /// The proof type proven.
    pub proof_type: String,
    /// The proof, and how it was assembled and checked.
    pub sector: SectorProof,
    /// Backend name and path.
    pub backend: String,
    /// Device used.
    pub device: String,
    /// Loading or recording the PCE.
    pub pce_time: Duration,
    /// Opening the parameters (and decoding them all, for several
    /// partitions; a single partition decodes each query as it is used).
    pub params_time: Duration,
    /// Witness, proving (with verification) and finishing times.
    pub stages: StageTimes,
}

/// The result of a run.
pub struct C2Run {
    /// One outcome per input, in input order.
    pub outcomes: Vec<Result<C2Outcome, C2Error>>,
    /// The memory plan, with the peak of partitions in flight.
    pub memory: MemoryPlan,
    /// The devices proven on, with the partitions each proved.
    pub devices: Vec<DeviceUse>,
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

/// Proves the sector of `input` ([`prove_sectors`] with one input).
pub fn run(input: &C1Input, options: &C2Options) -> Result<C2Outcome, C2Error> {
    prove_sectors(
        std::slice::from_ref(input),
        options,
        &|_| {},
        &mut |_, _| {},
    )?
    .outcomes
    .remove(0)
}

/// Proves the sectors of `inputs`, which must all be of one proof type.
///
/// `done` receives each sector's result on the caller's thread as soon as
/// it is known (to write it out); `observer` sees the engine's progress.
/// `options.engine.randomness`, when given, holds one `(r, s)` per
/// partition of every sector, in input order; `options.sector_id` only
/// applies to a single input. Errors of one sector are in its outcome; the
/// error of the whole call is for what prevents every proof (parameters,
/// SnarkPack SRS of non-interactive PoRep, PCE, backend, budget), found
/// before any proving.
pub fn prove_sectors(
    inputs: &[C1Input],
    options: &C2Options,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &SectorResult),
) -> Result<C2Run, C2Error> {
    let first = single_proof_type(inputs)?;
    let partitions: usize = inputs.iter().map(C1Input::num_partitions).sum();
    let aggregates = first.proof_type.is_non_interactive() && !options.circuit_proofs;
    let circuit = load_circuit_for(first.proof_type, partitions > 1, aggregates)?;
    prove_with(&circuit, None, inputs, options, observer, done)
}

/// Checks the parameter files of `proof_type` (and SnarkPack's SRS for
/// non-interactive PoRep) and loads its circuit: the PCE, recorded on first
/// use, and the parameters, decoded once and kept when `resident` (a
/// process that proves more than one partition).
pub fn load_circuit(proof_type: ProofType, resident: bool) -> Result<LoadedCircuit, C2Error> {
    load_circuit_for(proof_type, resident, proof_type.is_non_interactive())
}

/// [`load_circuit`], checking SnarkPack's SRS only when the proofs will
/// be aggregated.
fn load_circuit_for(
    proof_type: ProofType,
    resident: bool,
    aggregates: bool,
) -> Result<LoadedCircuit, C2Error> {
    let config = proof_type.config();
    with_shape!(
        proof_type.sector_size,
        load_shape,
        proof_type,
        &config,
        resident,
        aggregates
    )
}

fn load_shape<Tree: 'static + MerkleTreeTrait>(
    proof_type: ProofType,
    config: &PoRepConfig,
    resident: bool,
    aggregates: bool,
) -> Result<LoadedCircuit, C2Error> {
    let files = CircuitFiles::of::<Tree>(config)?;
    files.check_parameters(&proof_type.to_string())?;
    if aggregates {
        aggregate::check_srs(&proof_type.to_string(), usize::from(config.partitions))?;
    }
    LoadedCircuit::load(
        &files.id,
        || files.load_or_extract_pce::<Tree>(config),
        &files.params,
        resident,
    )
}

/// [`prove_sectors`] on a circuit already loaded by [`load_circuit`] for
/// the inputs' proof type, on devices already set up for it (a daemon
/// keeps both between requests); `options.engine`'s backend and devices
/// are not used.
pub fn prove_on(
    circuit: &LoadedCircuit,
    provers: &[DeviceProver<'_>],
    inputs: &[C1Input],
    options: &C2Options,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &SectorResult),
) -> Result<C2Run, C2Error> {
    prove_with(circuit, Some(provers), inputs, options, observer, done)
}

/// The inputs on `circuit`, on `provers` when given, else on the devices
/// `options.engine` names.
fn prove_with(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[C1Input],
    options: &C2Options,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &SectorResult),
) -> Result<C2Run, C2Error> {
    let first = single_proof_type(inputs)?;
    let config = first.proof_type.config();
    // The circuit may have been loaded for the interactive proof type,
    // which shares it (a daemon's preload): the SRS a non-interactive
    // sector is aggregated with is checked here too, before any proving.
    if first.proof_type.is_non_interactive() && !options.circuit_proofs {
        aggregate::check_srs(
            &first.proof_type.to_string(),
            usize::from(config.partitions),
        )?;
    }
    with_shape!(
        first.proof_type.sector_size,
        prove_loaded_shape,
        circuit,
        provers,
        inputs,
        &config,
        options,
        observer,
        done
    )
}

/// The first input, once all are known to be of its proof type.
fn single_proof_type(inputs: &[C1Input]) -> Result<&C1Input, C2Error> {
    let first = inputs.first().ok_or(C2Error::NoInputs)?;
    if let Some(other) = inputs.iter().find(|i| i.proof_type != first.proof_type) {
        return Err(C2Error::MixedProofTypes {
            path: other.path.clone(),
            found: other.proof_type.to_string(),
            expected: first.proof_type.to_string(),
        });
    }
    Ok(first)
}

fn prove_loaded_shape<Tree: 'static + MerkleTreeTrait>(
    circuit: &LoadedCircuit,
    provers: Option<&[DeviceProver<'_>]>,
    inputs: &[C1Input],
    config: &PoRepConfig,
    options: &C2Options,
    observer: Observer<'_>,
    done: &mut dyn FnMut(usize, &SectorResult),
) -> Result<C2Run, C2Error> {
    let proof_type = inputs[0].proof_type.to_string();
    let jobs: Vec<SectorJob<'_, Tree>> = inputs
        .iter()
        .map(|input| {
            let sector_id = match inputs.len() {
                1 => options.sector_id.or(input.sector_num),
                _ => input.sector_num,
            };
            SectorJob::new(
                input,
                config,
                options.prover_id,
                sector_id,
                options.circuit_proofs,
            )
        })
        .collect();
    let deliver = |i: usize, r: &SectorResult| done(i, r);
    let run = match provers {
        Some(provers) => {
            proving_engine::run_with(circuit, provers, &jobs, &options.engine, observer, deliver)?
        }
        None => proving_engine::run(circuit, &jobs, &options.engine, observer, deliver)?,
    };
    let outcomes = run
        .results
        .into_iter()
        .map(|result| {
            result.map(|proven| C2Outcome {
                proof_type: proof_type.clone(),
                sector: proven.output,
                backend: run.backend.clone(),
                device: run.device.clone(),
                pce_time: circuit.pce_time,
                params_time: circuit.params_time(),
                stages: proven.times,
            })
        })
        .collect();
    Ok(C2Run {
        outcomes,
        memory: run.memory,
        devices: run.devices,
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
