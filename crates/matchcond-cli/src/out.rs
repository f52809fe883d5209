//! Writing to standard output and standard error without panicking: when a stream is
//! closed (`matchcond eval … | head -c 10`), the rest of the output is dropped quietly and
//! the command ends with the exit code it would have had.

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

fn write_to(mut w: impl Write, closed: &AtomicBool, args: fmt::Arguments<'_>) {
    if closed.load(Ordering::Relaxed) {
        return;
    }
    let result = w.write_fmt(args).and_then(|()| w.write_all(b"\n"));
    if result.is_err() {
        // A closed pipe (or any other failure to write) ends the output, quietly.
        closed.store(true, Ordering::Relaxed);
    }
}

/// Writes a line to standard output.
pub fn out(args: fmt::Arguments<'_>) {
    write_to(std::io::stdout().lock(), &STDOUT_CLOSED, args);
}

/// Writes a line to standard error.
pub fn err(args: fmt::Arguments<'_>) {
    write_to(std::io::stderr().lock(), &STDERR_CLOSED, args);
}

/// Flushes standard output (errors are dropped as above).
pub fn flush() {
    if std::io::stdout().lock().flush().is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `println!` that does not panic on a closed pipe.
macro_rules! outln {
    () => { crate::out::out(format_args!("")) };
    ($($arg:tt)*) => { crate::out::out(format_args!($($arg)*)) };
}

/// `eprintln!` that does not panic on a closed pipe.
macro_rules! errln {
    ($($arg:tt)*) => { crate::out::err(format_args!($($arg)*)) };
}
