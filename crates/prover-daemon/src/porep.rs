//! PoRep C2 requests as Curio sends them, and their proving.
//!
//! Curio wraps the commit-phase-1 output the way lotus-bench writes
//! `c1.json`: `{"SectorNum", "Phase1Out" (base64 of the C1 JSON),
//! "SectorSize"}`, and names the miner, the sector and the numeric
//! `RegisteredSealProof` beside it. The answer is what filecoin-proofs'
//! `seal_commit_phase2` returns, checked with `verify_seal` against the
//! miner's prover id and the sector number before it leaves the daemon.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use filecoin_prover::c1::C1Input;
use filecoin_prover::c2::{load_circuit, prove_on, prover_id_of_miner, C2Options};
use filecoin_prover::proof_type::{ProofType, Variant, SECTOR_SIZES};
use proving_engine::memory::{domain_size, MemoryModel};
use proving_engine::{chain, DeviceProver, Devices, EngineOptions, LoadedCircuit, Registry};

use crate::jobs::Timings;
use crate::memory_gate::MemoryGate;

/// A PoRep C2 request.
#[derive(Debug, Clone)]
pub struct PorepRequest {
    /// The request id (names the job in errors).
    pub id: String,
    /// Curio's wrapper of the C1 output.
    pub c1: Vec<u8>,
    /// The sector's number.
    pub sector_number: u64,
    /// The miner's actor id (the prover id is derived from it).
    pub miner_id: u64,
    /// The sector's proof type.
    pub proof_type: ProofType,
}

impl PorepRequest {
    /// Checks what can be checked without parsing the C1 output: a known
    /// proof type of the stated sector size, and an output at all.
    pub fn new(
        id: &str,
        c1: Vec<u8>,
        registered_proof: u64,
        sector_size: u64,
        sector_number: u64,
        miner_id: u64,
    ) -> Result<Self, String> {
        let proof_type = ProofType::from_id(registered_proof).ok_or_else(|| {
            format!("registered_proof {registered_proof} is not a seal proof type")
        })?;
        if sector_size != 0 && sector_size != proof_type.sector_size {
            return Err(format!(
                "sector_size {sector_size} does not match registered_proof {registered_proof} ({proof_type})"
            ));
        }
        if c1.is_empty() {
            return Err("vanilla_proof is empty: PoRep needs the commit-phase-1 output".into());
        }
        Ok(Self {
            id: id.to_owned(),
            c1,
            sector_number,
            miner_id,
            proof_type,
        })
    }
}

impl PorepRequest {
    /// Parses the C1 output and checks it against the request, before any
    /// circuit is loaded for it.
    pub fn open(&self) -> Result<C1Input, String> {
        let label = PathBuf::from(format!("request {}", self.id));
        let input =
            C1Input::parse(&label, &self.c1, Some(self.proof_type)).map_err(|e| e.to_string())?;
        if input.proof_type != self.proof_type {
            return Err(format!(
                "the C1 output is for {}, but registered_proof says {}",
                input.proof_type, self.proof_type
            ));
        }
        if let Some(number) = input.sector_num.filter(|&n| n != self.sector_number) {
            return Err(format!(
                "the C1 wrapper is for sector {number}, but sector_number says {}",
                self.sector_number
            ));
        }
        Ok(input)
    }
}

/// The registry name of the circuit a proof type is proven with, in
/// cuzk's style (`porep-32g`). Interactive and non-interactive PoRep of one
/// size share their circuit, so they share the name.
pub fn circuit_name(proof_type: ProofType) -> String {
    let size = SECTOR_SIZES
        .iter()
        .find(|&&(size, _)| size == proof_type.sector_size)
        .map(|&(_, name)| {
            name.trim_end_matches('B')
                .trim_end_matches('i')
                .to_lowercase()
        })
        .unwrap_or_else(|| proof_type.sector_size.to_string());
    match proof_type.variant {
        Variant::V1_1 | Variant::NonInteractive => format!("porep-{size}"),
        _ => format!("porep-{size}-{proof_type}"),
    }
}

/// The proof type whose circuit `name` designates: a registry name
/// (`porep-32g`) or a proof type name (`StackedDrg32GiBV1_1`).
pub fn circuit_proof_type(name: &str) -> Result<ProofType, String> {
    if let Some(proof_type) = ProofType::from_name(name) {
        return Ok(proof_type);
    }
    let known = SECTOR_SIZES
        .iter()
        .filter_map(|&(size, _)| ProofType::interactive(size))
        .find(|&proof_type| circuit_name(proof_type) == name);
    match known {
        Some(proof_type) => Ok(proof_type),
        None if ["wpost-", "winning-", "snap-"].iter().any(|p| name.starts_with(p)) => Err(format!(
            "circuit {name:?}: WindowPoSt, WinningPoSt and SnapDeals are not supported yet"
        )),
        None => Err(format!(
            "unknown circuit {name:?}: expected porep-2k, porep-8m, porep-512m, porep-32g, porep-64g or a proof type name such as StackedDrg32GiBV1_1"
        )),
    }
}

/// What the workers share to prove PoRep.
pub struct Proving {
    /// Loaded circuits.
    pub circuits: Registry,
    /// The daemon's memory budget.
    pub gate: MemoryGate,
}

/// A proven sector.
pub struct Proven {
    /// What `seal_commit_phase2` returns.
    pub proof: Vec<u8>,
    /// Where the time went (the queue wait and total are the caller's).
    pub timings: Timings,
}

impl Proving {
    /// The circuit of `proof_type`, loaded (and its memory counted) if no
    /// job has loaded it yet; with the time it took this caller.
    pub fn circuit(&self, proof_type: ProofType) -> Result<(Arc<LoadedCircuit>, Duration), String> {
        let name = circuit_name(proof_type);
        let start = Instant::now();
        let circuit = self
            .circuits
            .get_or_load(&name, || {
                let circuit = load_circuit(proof_type, true)?;
                circuit.decode()?;
                Ok::<_, filecoin_prover::C2Error>(circuit)
            })
            .map_err(|e| chain(&e))?;
        self.gate.set_resident(&name, resident_bytes(&circuit));
        Ok((circuit, start.elapsed()))
    }

    /// Proves `request`, whose C1 output is `input` ([`PorepRequest::open`]),
    /// with `prover`, a prover of `circuit` (the circuit of the request's
    /// proof type, from [`Proving::circuit`]) on a device, stopping at the
    /// next partition once `cancel` is set.
    pub fn prove(
        &self,
        request: &PorepRequest,
        input: &C1Input,
        circuit: &LoadedCircuit,
        prover: &DeviceProver<'_>,
        cancel: &Arc<AtomicBool>,
    ) -> Result<Proven, String> {
        let log_n = domain_size(&circuit.pce).trailing_zeros();
        let ntt_scratch = prover
            .prover
            .device()
            .ntt_scratch_bytes(log_n)
            .map_err(|e| e.to_string())?;
        let model = MemoryModel::new(
            &circuit.pce,
            circuit.params.shape(),
            circuit.resident,
            circuit.process_before,
            ntt_scratch,
        );
        // One partition proven while the next one's witness is generated.
        let in_flight = 2;
        let reservation = self
            .gate
            .reserve(model.per_partition() * in_flight, cancel)
            .map_err(|e| e.to_string())?;
        let options = C2Options {
            engine: EngineOptions {
                // Not used: the prover is already on its device.
                backend: prover.prover.device().backend().name().to_owned(),
                devices: Devices::All,
                jobs: 1,
                partitions_in_flight: in_flight as usize,
                memory_budget: Some(model.static_bytes() + reservation.bytes()),
                randomness: None,
                cancel: Some(cancel.clone()),
            },
            prover_id: Some(prover_id_of_miner(request.miner_id)),
            sector_id: Some(request.sector_number),
        };
        let mut run = prove_on(
            circuit,
            std::slice::from_ref(prover),
            std::slice::from_ref(input),
            &options,
            &|_| {},
            &mut |_, _| {},
        )
        .map_err(|e| chain(&e))?;
        let outcome = run.outcomes.remove(0).map_err(|e| chain(&e))?;
        Ok(Proven {
            proof: outcome.sector.proof,
            timings: Timings {
                synthesis: outcome.stages.witness,
                prove: outcome.stages.prove,
                finish: outcome.stages.finish,
                ..Timings::default()
            },
        })
    }
}

/// What a loaded circuit holds whatever the jobs: its PCE, its decoded
/// parameters and its NTT tables.
pub fn resident_bytes(circuit: &LoadedCircuit) -> u64 {
    let model = MemoryModel::new(&circuit.pce, circuit.params.shape(), circuit.resident, 0, 0);
    model.static_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuit_names_follow_cuzk() {
        let p32 = ProofType::interactive(32 << 30).unwrap();
        assert_eq!(circuit_name(p32), "porep-32g");
        assert_eq!(
            circuit_name(ProofType::interactive(2048).unwrap()),
            "porep-2k"
        );
        assert_eq!(circuit_proof_type("porep-32g").unwrap(), p32);
        assert_eq!(circuit_proof_type("StackedDrg32GiBV1_1").unwrap(), p32);
        let ni = ProofType::from_id(15).unwrap();
        assert_eq!(circuit_name(ni), "porep-2k");
        let err = circuit_proof_type("wpost-32g").unwrap_err();
        assert!(err.contains("not supported yet"), "{err}");
        assert!(circuit_proof_type("porep-3g")
            .unwrap_err()
            .contains("unknown circuit"));
    }

    #[test]
    fn requests_are_checked_before_they_are_queued() {
        let ok = PorepRequest::new("r", vec![b'{'], 5, 2048, 1, 1000).unwrap();
        assert_eq!(ok.proof_type, ProofType::interactive(2048).unwrap());
        let err = PorepRequest::new("r", vec![b'{'], 5, 32 << 30, 1, 1000).unwrap_err();
        assert!(err.contains("does not match"), "{err}");
        assert!(PorepRequest::new("r", vec![b'{'], 99, 2048, 1, 1000).is_err());
        assert!(PorepRequest::new("r", vec![], 5, 2048, 1, 1000)
            .unwrap_err()
            .contains("empty"));
    }
}
