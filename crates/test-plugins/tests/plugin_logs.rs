//! A plugin's `tracing` events come out of the host's subscriber, filtered
//! by the host's level, under the target `pce_plugin`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use backend_api::Backend;

/// A writer appending to a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn plugin_events_reach_the_host_subscriber() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();
    std::env::set_var(pce_backend_broken::MODE_ENV, "log");
    let path = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join(backend_api::loader::plugin_file_name("broken"));
    let backend = Backend::load_path(&path).unwrap();
    backend.devices().unwrap();
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("WARN"), "{text}");
    assert!(text.contains("pce_plugin"), "{text}");
    assert!(text.contains("simulated warning devices=1"), "{text}");
    assert!(text.contains("plugin=pce_backend_broken"), "{text}");
    assert!(
        !text.contains("simulated debug detail"),
        "the host's level filters plugin events: {text}"
    );
}
