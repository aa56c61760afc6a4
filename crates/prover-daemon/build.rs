//! Generates the gRPC code of `proto/cuzk/v1/proving.proto` with protox, a
//! protobuf compiler in Rust, so that building needs no `protoc`.

use std::path::PathBuf;

fn main() {
    let proto = "cuzk/v1/proving.proto";
    println!("cargo:rerun-if-changed=proto/{proto}");
    let descriptors = protox::Compiler::new(["proto"])
        .and_then(|mut compiler| {
            compiler.include_imports(true).open_files([proto])?;
            Ok(compiler.encode_file_descriptor_set())
        })
        .unwrap_or_else(|e| panic!("compiling proto/{proto}: {e}"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let descriptor_path = out.join("proving.descriptors");
    std::fs::write(&descriptor_path, descriptors).expect("writing the descriptors to OUT_DIR");
    tonic_build::configure()
        .skip_protoc_run()
        .file_descriptor_set_path(&descriptor_path)
        .compile_protos(&[format!("proto/{proto}")], &["proto"])
        .unwrap_or_else(|e| panic!("generating the gRPC code of proto/{proto}: {e}"));
}
