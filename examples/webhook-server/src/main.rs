//! `matchcond-webhook-server`: serves the webhooks of a configuration over HTTPS.
//!
//! ```text
//! matchcond-webhook-server --config examples/webhooks.yaml --self-signed
//! matchcond-webhook-server --config webhooks.yaml --cert tls.crt --key tls.key --listen 0.0.0.0:8443
//! ```
//!
//! Exit codes: 0 after SIGINT/SIGTERM, 2 when the configuration, the certificate or the
//! address cannot be used.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{ArgGroup, Parser};
use matchcond::KubeVersion;
use matchcond_webhook_server::{router, self_signed, serve, server_config, Webhooks};

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
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    listen: SocketAddr,
    /// The certificate chain (PEM, leaf first).
    #[arg(long, value_name = "FILE", requires = "key")]
    cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// Generate a self-signed certificate for the `--san` names instead.
    #[arg(long)]
    self_signed: bool,
    /// The names of the self-signed certificate (DNS names or IP addresses).
    #[arg(long = "san", value_name = "NAME", default_values = ["localhost", "127.0.0.1", "::1"], requires = "self_signed")]
    san: Vec<String>,
    /// Write the self-signed certificate (PEM) here, for clients to trust.
    #[arg(long, value_name = "FILE", requires = "self_signed")]
    write_cert: Option<PathBuf>,
    /// The Kubernetes version whose CEL environment and validation apply (MAJOR.MINOR).
    #[arg(long = "k8s-version", value_name = "V", default_value = "1.34", value_parser = parse_version)]
    k8s_version: KubeVersion,
}

fn parse_version(text: &str) -> Result<KubeVersion, String> {
    match KubeVersion::parse(text) {
        Some(v) if v >= KubeVersion::V1_28 && v <= KubeVersion::LATEST => Ok(v),
        _ => Err(format!(
            "unsupported Kubernetes version {text:?} (supported: 1.28 to {})",
            KubeVersion::LATEST
        )),
    }
}

fn read(path: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn run(args: Args) -> Result<(), String> {
    let text = read(&args.config)?;
    let text = String::from_utf8(text)
        .map_err(|_| format!("{}: not UTF-8 text", args.config.display()))?;
    let webhooks = Webhooks::from_text(&text, args.k8s_version)
        .map_err(|e| format!("{}: {e}", args.config.display()))?;
    // The traps the apiserver accepts but that fail at run time: reported, not refused.
    let report = matchcond::lint::Linter::new(args.k8s_version)
        .with_compatibility(false)
        .lint_text(&text);
    for f in report
        .findings()
        .filter(|f| f.severity() == matchcond::lint::Severity::Warning)
    {
        let at = f.position().map(|p| format!("{p}: ")).unwrap_or_default();
        eprintln!(
            "matchcond-webhook-server: {}:{at}warning[{}]: {}: {}",
            args.config.display(),
            f.code(),
            f.path(),
            f.message()
        );
    }
    let tls = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => server_config(&read(cert)?, &read(key)?)
            .map_err(|e| format!("{}: {e}", cert.display()))?,
        _ => {
            let generated = self_signed(&args.san).map_err(|e| e.to_string())?;
            if let Some(path) = &args.write_cert {
                std::fs::write(path, &generated.cert_pem)
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            }
            server_config(generated.cert_pem.as_bytes(), generated.key_pem.as_bytes())
                .map_err(|e| e.to_string())?
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        println!("listening on https://{addr}");
        for hook in webhooks.iter() {
            println!(
                "  POST {} ({} matchConditions, failurePolicy {:?})",
                hook.path(),
                hook.condition_count(),
                hook.failure_policy
            );
        }
        serve(
            listener,
            Arc::new(tls),
            router(Arc::new(webhooks)),
            shutdown_signal(),
        )
        .await;
        Ok(())
    })
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
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("matchcond-webhook-server: {e}");
            ExitCode::from(2)
        }
    }
}
