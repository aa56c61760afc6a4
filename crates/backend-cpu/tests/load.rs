use backend_api::Backend;
#[test]
fn loads() {
    let b = Backend::load("cpu").unwrap();
    println!("{:?} {:?}", b, b.devices().unwrap());
}
