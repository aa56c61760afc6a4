//! `c2`: from a C1 file to the sector proof, with every check.
//!
//! The options and outcome of a C2 run, and [`run`] for one sector: the
//! pipeline of [`crate::pipeline`] with a single input. It loads (or
//! records) the PCE and the parameters from the cache, loads the backend,
//! proves every partition, verifies each partition proof against the C1
//! output's public inputs, aggregates the partition proofs of a
//! non-interactive PoRep sector with SnarkPack ([`crate::aggregate`]) and,
//! when the prover and sector ids are known, checks the whole proof with
//! filecoin-proofs' `verify_seal` (without them, an aggregate is checked
//! against the C1 output's public inputs).

use std::time::Duration;

use blstrs::Scalar;

use crate::c1::C1Input;
use crate::pipeline::{prove_sectors, StageTimes};
use crate::C2Error;

/// How to prove.
#[derive(Debug, Clone)]
pub struct C2Options {
    /// Backend name or path.
    pub backend: String,
    /// Device index.
    pub device: u32,
    /// Partitions whose witnesses may be in memory at once per prover:
    /// at most `jobs + partitions_in_flight - 1` partitions are in flight.
    pub partitions_in_flight: usize,
    /// Partitions proven at once (each sector's partitions in order, the
    /// sectors one after another).
    pub jobs: usize,
    /// Bytes the run may use ([`crate::memory`]); `None` for
    /// [`crate::memory::default_budget`].
    pub memory_budget: Option<u64>,
    /// Prover id, for `verify_seal`.
    pub prover_id: Option<[u8; 32]>,
    /// Sector number, for `verify_seal` (lotus-bench files carry it);
    /// ignored when several sectors are proven at once.
    pub sector_id: Option<u64>,
    /// Fixed `(r, s)` per partition, the sectors' partitions one after
    /// another (tests comparing with bellperson); random when `None`.
    pub randomness: Option<Vec<(Scalar, Scalar)>>,
}

/// What a C2 run produced and measured.
#[derive(Debug, Clone)]
pub struct C2Outcome {
    /// The proof, as filecoin-proofs' `seal_commit_phase2` returns it: the
    /// partition proofs, or their SnarkPack aggregate for non-interactive
    /// PoRep.
    pub proof: Vec<u8>,
    /// The partition proofs, 192 bytes each in partition order (as
    /// `seal_commit_phase2_circuit_proofs` returns them); for interactive
    /// PoRep the same bytes as `proof`.
    pub partition_proofs: Vec<u8>,
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
    /// SnarkPack aggregation (non-interactive PoRep only).
    pub aggregate: Option<Duration>,
    /// Check of the aggregate against the C1 output's public inputs, when
    /// `verify_seal` could not run (non-interactive PoRep only).
    pub verify_aggregate: Option<Duration>,
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

/// Proves the sector of `input` ([`prove_sectors`] with one input).
pub fn run(input: &C1Input, options: &C2Options) -> Result<C2Outcome, C2Error> {
    prove_sectors(std::slice::from_ref(input), options, &|_| {})?
        .outcomes
        .remove(0)
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
