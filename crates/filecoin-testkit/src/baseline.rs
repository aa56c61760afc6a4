//! filecoin-proofs' own provers on the same inputs, the baseline
//! benchmarks (and byte-level tests) compare against.

use filecoin_proofs::{
    generate_empty_sector_update_proof_with_vanilla, generate_single_window_post_with_vanilla,
    generate_window_post_with_vanilla, generate_winning_post_with_vanilla, seal_commit_phase2,
    with_shape, FallbackPoStSectorProof, PoRepConfig, TreeRHasher,
};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_core::sector::SectorId;

use filecoin_prover::c1::C1Input;
use filecoin_prover::post::{PoStInput, PoStKind};
use filecoin_prover::update::UpdateInput;
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

/// filecoin-proofs' own PoSt from the same vanilla proofs (bellperson on
/// the CPU): `generate_window_post_with_vanilla`, for one partition
/// `generate_single_window_post_with_vanilla`, or
/// `generate_winning_post_with_vanilla`.
pub fn filecoin_post(input: &PoStInput) -> Result<Vec<u8>, C2Error> {
    with_shape!(input.proof_type.sector_size, post_shape, input)
}

fn post_shape<Tree: 'static + MerkleTreeTrait>(input: &PoStInput) -> Result<Vec<u8>, C2Error> {
    let name = input.proof_type.to_string();
    let proofs = input
        .vanilla_proofs
        .iter()
        .map(|v| v.decode::<FallbackPoStSectorProof<Tree>>(&name))
        .collect::<Result<Vec<_>, _>>()?;
    let config = input.proof_type.config();
    let (randomness, prover_id) = (&input.randomness, input.prover_id);
    match (input.proof_type.kind, input.partition) {
        (PoStKind::Winning, _) => {
            generate_winning_post_with_vanilla::<Tree>(&config, randomness, prover_id, proofs)
                .map_err(C2Error::filecoin(
                    "filecoin-proofs generate_winning_post_with_vanilla",
                ))
        }
        (PoStKind::Window, None) => {
            generate_window_post_with_vanilla::<Tree>(&config, randomness, prover_id, proofs)
                .map_err(C2Error::filecoin(
                    "filecoin-proofs generate_window_post_with_vanilla",
                ))
        }
        (PoStKind::Window, Some(k)) => generate_single_window_post_with_vanilla::<Tree>(
            &config, randomness, prover_id, proofs, k,
        )
        .map(|p| p.0)
        .map_err(C2Error::filecoin(
            "filecoin-proofs generate_single_window_post_with_vanilla",
        )),
    }
}

/// filecoin-proofs' own SnapDeals proof from the same vanilla proofs:
/// `generate_empty_sector_update_proof_with_vanilla`.
pub fn filecoin_update(input: &UpdateInput) -> Result<Vec<u8>, C2Error> {
    with_shape!(input.proof_type.sector_size, update_shape, input)
}

fn update_shape<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    input: &UpdateInput,
) -> Result<Vec<u8>, C2Error> {
    let name = input.proof_type.to_string();
    let proofs = input
        .vanilla_proofs
        .iter()
        .map(|v| v.decode(&name))
        .collect::<Result<Vec<_>, _>>()?;
    let c = &input.commitments;
    generate_empty_sector_update_proof_with_vanilla::<Tree>(
        &input.proof_type.porep_config(),
        proofs,
        c.comm_r_old,
        c.comm_r_new,
        c.comm_d_new,
    )
    .map(|p| p.0)
    .map_err(C2Error::filecoin(
        "filecoin-proofs generate_empty_sector_update_proof_with_vanilla",
    ))
}
