//! filecoin-proofs' own C2 on the same input, the baseline benchmarks
//! compare against.

use filecoin_proofs::{seal_commit_phase2, with_shape, PoRepConfig};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

use filecoin_prover::c1::C1Input;
use filecoin_prover::C2Error;

/// Runs filecoin-proofs' `seal_commit_phase2` (bellperson on the CPU) on
/// `input`; it verifies its proof with `verify_seal` before returning it.
pub fn filecoin_seal_commit_phase2(
    input: &C1Input,
    prover_id: [u8; 32],
    sector_id: u64,
) -> Result<Vec<u8>, C2Error> {
    let config = input.proof_type.config();
    with_shape!(
        input.proof_type.sector_size,
        run_shape,
        input,
        &config,
        prover_id,
        sector_id
    )
}

fn run_shape<Tree: 'static + MerkleTreeTrait>(
    input: &C1Input,
    config: &PoRepConfig,
    prover_id: [u8; 32],
    sector_id: u64,
) -> Result<Vec<u8>, C2Error> {
    let c1 = input.phase1_output::<Tree>()?;
    let output = seal_commit_phase2::<Tree>(config, c1, prover_id, SectorId::from(sector_id))
        .map_err(C2Error::filecoin("filecoin-proofs seal_commit_phase2"))?;
    Ok(output.proof)
}
