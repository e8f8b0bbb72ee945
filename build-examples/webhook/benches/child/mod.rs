//! The webhook in a child process of the bench's own binary, so that its memory is its own.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The child, killed when dropped.
pub struct Server(Child);

impl Server {
    /// The bench's binary run with `args`, which serves on a free port and prints it first;
    /// the child and its address.
    pub fn start<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> (Server, String) {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the webhook starts");
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut port).unwrap();
        (Server(child), format!("127.0.0.1:{}", port.trim()))
    }

    /// A field of the child's `/proc/<pid>/status` in KiB (`VmRSS:`, `VmHWM:`), 0 if unread.
    pub fn status(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).unwrap_or_default();
        let line = status.lines().find(|line| line.starts_with(field)).unwrap_or_default();
        line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
