//! `matchcond-webhook-server`: serves the webhooks of a configuration over HTTPS.
//!
//! ```text
//! matchcond-webhook-server --config examples/webhooks.yaml --self-signed
//! matchcond-webhook-server --config webhooks.yaml --cert tls.crt --key tls.key --listen :8443
//! ```
//!
//! Exit codes: 0 after SIGINT/SIGTERM once every request in flight was answered; 1 when
//! the grace period ran out first or a second signal cut the drain short; 2 when the
//! configuration, the certificate or the address cannot be used.

#![forbid(unsafe_code)]

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgGroup, Parser, ValueEnum};
use matchcond::KubeVersion;
use matchcond_webhook_server::flags::{parse_duration, parse_size, ListenAddr};
use matchcond_webhook_server::tls::{self, Origin};
use matchcond_webhook_server::{
    certified_key, serve, server_config_with, App, CertStore, Limits, ServeOptions, Webhooks,
};

/// mimalloc: each request's short-lived allocations (the review's members, the response,
/// the TLS records) served from per-thread pages instead of the system allocator's arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Parser)]
#[command(
    name = "matchcond-webhook-server",
    version,
    about = "An HTTPS admission webhook server deciding its webhooks' matchConditions as kube-apiserver does",
    group = ArgGroup::new("tls").required(true).args(["cert", "self_signed"])
)]
struct Args {
    /// The webhook configuration (YAML or JSON, one or more documents).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The address to listen on: HOST:PORT, or :PORT for every interface.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    listen: ListenAddr,
    /// The certificate chain (PEM, leaf first); reloaded when it changes.
    #[arg(long, value_name = "FILE", requires = "key")]
    cert: Option<PathBuf>,
    /// The certificate's private key (PEM); reloaded when it changes.
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// How often to look for a renewed --cert/--key (0: never).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    cert_reload_interval: Duration,
    /// Serve a self-signed certificate for the --san names instead.
    #[arg(long)]
    self_signed: bool,
    /// The names of the self-signed certificate (DNS names or IP addresses).
    #[arg(long = "san", value_name = "NAME", default_values = ["localhost", "127.0.0.1", "::1"], requires = "self_signed")]
    san: Vec<String>,
    /// Write the self-signed certificate (PEM, the caBundle) here; with --write-key, reuse
    /// it on later starts.
    #[arg(long, value_name = "FILE", requires = "self_signed")]
    write_cert: Option<PathBuf>,
    /// Write the self-signed certificate's key here (mode 0600); when both files exist,
    /// they are reused instead of generating a new certificate.
    #[arg(long, value_name = "FILE", requires = "write_cert")]
    write_key: Option<PathBuf>,
    /// The Kubernetes version whose CEL environment and validation apply (MAJOR.MINOR;
    /// default: the newest modelled).
    #[arg(long = "k8s-version", value_name = "V", default_value_t = KubeVersion::LATEST, value_parser = parse_version)]
    k8s_version: KubeVersion,
    /// List every condition's outcome in the responses' warnings (kubectl shows them to
    /// the user who made the request).
    #[arg(long)]
    warnings: bool,
    /// Answer every request with one fixed AdmissionReview after reading its body, over the
    /// same TLS and HTTP stack, deciding nothing: the floor of the load test.
    #[arg(long, hide = true)]
    floor: bool,
    /// The largest AdmissionReview body accepted (larger: 413).
    #[arg(long, value_name = "SIZE", default_value = "16Mi", value_parser = parse_size)]
    max_body_bytes: usize,
    /// Admission requests received or decided at once (more: 503).
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_inflight_requests: usize,
    /// Body bytes held at once by all admission requests (more: 503).
    #[arg(long, value_name = "SIZE", default_value = "64Mi", value_parser = parse_size)]
    max_inflight_bytes: usize,
    /// The time allowed to receive a request body (longer: 408).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    request_timeout: Duration,
    /// On SIGTERM/SIGINT, how long in-flight requests may take to finish.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    grace_period: Duration,
    /// On SIGTERM/SIGINT, how long to go on accepting (with /readyz failing) before
    /// draining, while endpoints stop sending requests here.
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = parse_duration)]
    shutdown_delay: Duration,
    /// The least severe level logged.
    #[arg(long, value_name = "LEVEL", value_enum, default_value = "info")]
    log_level: LogLevel,
    /// How log lines are written (on standard error).
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
}

fn parse_version(text: &str) -> Result<KubeVersion, String> {
    text.parse::<KubeVersion>().map_err(|e| e.to_string())
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

/// Logs this server's events from `level` on, and its dependencies' warnings and errors.
fn init_logging(level: LogLevel, format: LogFormat) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let level = match level {
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
    };
    let filter = Targets::new()
        .with_target("matchcond_webhook_server", level)
        .with_default(level.min(LevelFilter::WARN));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false);
    match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .finish()
            .with(filter)
            .init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .finish()
            .with(filter)
            .init(),
    }
}

/// SIGTERM and SIGINT, one at a time.
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> Result<Signals, String> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let listen = |kind| signal(kind).map_err(|e| format!("cannot handle signals: {e}"));
            Ok(Signals {
                term: listen(SignalKind::terminate())?,
                int: listen(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}

/// The serving certificate, and the files to watch for a renewed one.
struct Serving {
    store: Arc<CertStore>,
    watch: Option<(PathBuf, PathBuf, Vec<u8>, Vec<u8>)>,
}

fn serving_certificate(args: &Args) -> Result<Serving, String> {
    if let (Some(cert), Some(key)) = (&args.cert, &args.key) {
        let (cert_pem, key_pem) = (read(cert)?, read(key)?);
        let loaded =
            certified_key(&cert_pem, &key_pem).map_err(|e| format!("{}: {e}", cert.display()))?;
        return Ok(Serving {
            store: CertStore::new(loaded),
            watch: Some((cert.clone(), key.clone(), cert_pem, key_pem)),
        });
    }
    let (generated, origin) = tls::self_signed_files(
        &args.san,
        args.write_cert.as_deref(),
        args.write_key.as_deref(),
    )
    .map_err(|e| e.to_string())?;
    match (origin, &args.write_cert, &args.write_key) {
        (Origin::Reused, Some(cert), _) => tracing::info!(
            cert = %cert.display(),
            "serving the self-signed certificate written by an earlier start"
        ),
        (Origin::Generated, Some(cert), Some(_)) => tracing::info!(
            cert = %cert.display(),
            "generated a self-signed certificate; later starts reuse it"
        ),
        (Origin::Generated, Some(cert), None) => tracing::info!(
            cert = %cert.display(),
            "generated a self-signed certificate; without --write-key the next start makes a new one"
        ),
        _ => {}
    }
    let loaded = certified_key(generated.cert_pem.as_bytes(), generated.key_pem.as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(Serving {
        store: CertStore::new(loaded),
        watch: None,
    })
}

fn run(args: Args) -> Result<ExitCode, String> {
    let text = read(&args.config)?;
    let text = String::from_utf8(text)
        .map_err(|_| format!("{}: not UTF-8 text", args.config.display()))?;
    let loaded = matchcond_webhook_server::config::load(&text, args.k8s_version)
        .map_err(|e| format!("{}: {e}", args.config.display()))?;
    // The traps the apiserver accepts but that fail or cost too much at run time: logged,
    // not refused (`matchcond lint` explains each).
    for w in &loaded.warnings {
        tracing::warn!(config = %args.config.display(), "lint: {w}");
    }
    let webhooks = Webhooks::compile(&loaded.configurations, args.k8s_version)
        .map_err(|e| format!("{}: {e}", args.config.display()))?
        .with_warnings(args.warnings);
    let serving = serving_certificate(&args)?;
    let tls = server_config_with(serving.store.clone()).map_err(|e| e.to_string())?;
    let limits = Limits {
        max_body_bytes: args.max_body_bytes,
        max_inflight_requests: args.max_inflight_requests,
        max_inflight_bytes: args.max_inflight_bytes,
        request_timeout: args.request_timeout,
    };
    let options = ServeOptions {
        grace_period: args.grace_period,
        shutdown_delay: args.shutdown_delay,
        floor: args.floor,
        ..ServeOptions::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async {
        let mut signals = Signals::new()?;
        let listener = args
            .listen
            .bind()
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        println!("listening on https://{addr}");
        for hook in webhooks.iter() {
            println!(
                "  POST {} ({} matchConditions, failurePolicy {:?})",
                hook.paths().join(", "),
                hook.condition_count(),
                hook.failure_policy
            );
        }
        let app = App::new(webhooks, limits);
        tracing::info!(
            address = %addr,
            webhooks = app.webhooks.len(),
            "serving"
        );
        let _watcher = match serving.watch {
            Some((cert, key, cert_pem, key_pem)) if !args.cert_reload_interval.is_zero() => {
                Some(AbortOnDrop(tokio::spawn(tls::watch_files(
                    serving.store.clone(),
                    cert,
                    key,
                    (cert_pem, key_pem),
                    args.cert_reload_interval,
                    Some(app.metrics.clone()),
                ))))
            }
            _ => None,
        };
        let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
        let grace_period = options.grace_period;
        let shutdown_delay = options.shutdown_delay;
        let server = serve(listener, Arc::new(tls), app, options, async {
            let _ = first_rx.await;
        });
        let signalled = async {
            let first = signals.next().await;
            tracing::info!(
                signal = first,
                grace_period = ?grace_period,
                shutdown_delay = ?shutdown_delay,
                "shutting down"
            );
            let _ = first_tx.send(());
            signals.next().await
        };
        tokio::select! {
            drained = server => Ok(if drained.complete() { ExitCode::SUCCESS } else { ExitCode::from(1) }),
            second = signalled => {
                tracing::error!(signal = second, "second signal: exiting without finishing the drain");
                Ok(ExitCode::from(1))
            }
        }
    })
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(args.log_level, args.log_format);
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("matchcond-webhook-server: {e}");
            ExitCode::from(2)
        }
    }
}
