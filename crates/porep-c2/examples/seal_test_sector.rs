//! Seals a 2 KiB test sector and writes its C1 output as a lotus-bench
//! c1.json: `cargo run --release -p porep-c2 --example seal_test_sector -- DIR [SEED]`.
//! Prints the arguments to pass to `pce-prover bench c2`.

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: seal_test_sector DIR [SEED]"))?,
    );
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    std::fs::create_dir_all(&dir)?;
    let miner = 1000;
    let sector =
        porep_c2::test_sector::seal_2kib_for(seed, &dir, porep_c2::c2::prover_id_of_miner(miner))?;
    let proof_type =
        porep_c2::proof_type::ProofType::interactive(2048).expect("2 KiB is registered");
    let wrapper =
        porep_c2::c1::lotus_bench_json(&sector.c1, proof_type, u64::from(sector.sector_id));
    let path = dir.join("c1.json");
    std::fs::write(&path, serde_json::to_vec(&wrapper)?)?;
    println!("--c1 {} --miner-id {miner}", path.display());
    Ok(())
}
