//! A scratch folder of the tests, removed when dropped (shared by the unit tests of
//! `src/run.rs` and the binary's tests).

use std::fs;
use std::path::PathBuf;

/// A folder under the system's temporary folder, removed with everything in it on drop.
pub struct Dir(pub PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A fresh, empty folder named after `name` and this process.
pub fn temp_dir(name: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!(
        "matchcond-conformance-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    Dir(dir)
}
