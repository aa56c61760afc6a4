fn main() {
    let dir = std::path::Path::new("/tmp/c1/sector");
    std::fs::create_dir_all(dir).unwrap();
    let s = porep_c2::test_sector::seal_2kib(1, dir).unwrap();
    let json = serde_json::to_string(&s.c1).unwrap();
    std::fs::write("/tmp/c1/c1-raw.json", json).unwrap();
}
