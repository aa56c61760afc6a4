//! Every corpus folder belongs to a campaign. A campaign reads the folder
//! of its own name and finds nothing where there is none, so a campaign
//! renamed without its folder would silently stop running its past
//! findings.

use std::path::Path;

#[test]
fn every_corpus_folder_is_named_by_a_campaign_and_holds_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = String::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            sources += &std::fs::read_to_string(&path).unwrap();
        }
    }
    let mut folders = 0;
    for entry in std::fs::read_dir(root.join("corpus")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        assert!(
            sources.contains(&format!("\"{name}\"")),
            "corpus/{name} is no campaign's name in tests/: its findings run nowhere"
        );
        let findings = std::fs::read_dir(entry.path()).unwrap().count();
        assert!(findings > 0, "corpus/{name} is empty");
        folders += 1;
    }
    assert!(folders > 0, "no corpus folder found in {}", root.display());
}
