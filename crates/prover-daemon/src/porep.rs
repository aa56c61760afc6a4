//! PoRep C2 requests as Curio sends them, and their proving.
//!
//! Curio wraps the commit-phase-1 output the way lotus-bench writes
//! `c1.json`: `{"SectorNum", "Phase1Out" (base64 of the C1 JSON),
//! "SectorSize"}`, and names the miner, the sector and the numeric
//! `RegisteredSealProof` beside it. The answer is what filecoin-proofs'
//! `seal_commit_phase2` returns, checked with `verify_seal` against the
//! miner's prover id and the sector number before it leaves the daemon.

use std::path::PathBuf;

use filecoin_prover::c1::C1Input;
use filecoin_prover::proof_type::ProofType;

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

#[cfg(test)]
mod tests {
    use super::*;

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
