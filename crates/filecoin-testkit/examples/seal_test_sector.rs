//! Seals a test sector (2 KiB unless SIZE is given, e.g. 8MiB) and writes
//! its C1 output as a lotus-bench c1.json:
//! `cargo run --release -p filecoin-testkit --example seal_test_sector -- DIR [SEED [SIZE]]`.
//! Prints the arguments to pass to `pce-prover bench c2`.

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: seal_test_sector DIR [SEED [SIZE]]"))?,
    );
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    let size = args.next().unwrap_or_else(|| "2KiB".into());
    let proof_type = filecoin_prover::proof_type::parse_sector_size(&size)
        .and_then(filecoin_prover::proof_type::ProofType::interactive)
        .ok_or_else(|| anyhow::anyhow!("{size:?} is not a registered sector size"))?;
    std::fs::create_dir_all(&dir)?;
    let miner = 1000;
    let wrapper = filecoin_testkit::test_sector::seal_as_lotus_bench(
        proof_type,
        seed,
        &dir,
        filecoin_prover::c2::prover_id_of_miner(miner),
    )?;
    let path = dir.join("c1.json");
    std::fs::write(&path, serde_json::to_vec(&wrapper)?)?;
    println!("--c1 {} --miner-id {miner}", path.display());
    Ok(())
}
