//! `matchcond-kube-webhook`: a kube-rs admission webhook that decides, from the cluster's
//! own webhook configurations, whether the apiserver calls a webhook — its
//! matchConditions, rules, selectors and failurePolicy, as kube-apiserver decides them.
//!
//! It shows matchcond in a kube-rs program:
//!
//! * a [`kube::Client`] from the kubeconfig or the pod's service account, and the
//!   cluster's version picking the CEL environment ([`KubeVersion::for_cluster`]);
//! * a [`LiveDispatcher`] fed by kube-runtime watchers of both webhook configuration
//!   kinds, recompiling what changes;
//! * namespaceSelectors answered from a reflector's `Store<Namespace>`
//!   ([`StoreNamespaces`]);
//! * axum routes answering kube's `AdmissionReview` ([`matchcond_kube_webhook::decide`]),
//!   with the apiserver's matchConditions metrics at `/metrics`.
//!
//! Run it against the cluster of your kubeconfig (a kind cluster will do), on plain HTTP:
//!
//! ```sh
//! cargo run -p matchcond-kube-webhook -- --insecure-http --listen 127.0.0.1:8443
//! curl -s -X POST --data-binary @examples/reviews/pod-create.json \
//!   http://127.0.0.1:8443/decide/pods.policy.example.com
//! ```
//!
//! With `--tls-cert-file` and `--tls-private-key-file` (PEM) it serves HTTPS instead, as
//! the apiserver requires of a webhook. SIGTERM or ctrl-c stops it gracefully.

use std::error::Error;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{ArgGroup, Parser};
use futures::{Stream, StreamExt as _};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Namespace;
use kube::runtime::watcher::{self, watcher, Event};
use kube::runtime::{reflector, WatchStreamExt as _};
use kube::{Api, Client};
use matchcond::runtime::{Applied, LiveDispatcher, StoreNamespaces};
use matchcond::KubeVersion;
use matchcond_kube_webhook::{router, serve, tls_config, App};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

type BoxError = Box<dyn Error + Send + Sync>;

/// A kube-rs admission webhook deciding, from the cluster's webhook configurations,
/// whether the apiserver calls a webhook.
#[derive(Debug, Parser)]
#[command(name = "matchcond-kube-webhook", version)]
#[command(group = ArgGroup::new("serving").required(true).args(["tls_cert_file", "insecure_http"]))]
struct Args {
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8443")]
    listen: SocketAddr,
    /// The serving certificate chain (PEM, leaf first).
    #[arg(long, value_name = "FILE", requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
    /// Serve plain HTTP (behind a TLS-terminating proxy, or to try it locally).
    #[arg(long)]
    insecure_http: bool,
    /// The Kubernetes version whose CEL environment applies (MAJOR.MINOR), instead of the
    /// cluster's.
    #[arg(long, value_name = "VERSION")]
    k8s_version: Option<KubeVersion>,
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_target(false).init();
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), BoxError> {
    let tls = match (&args.tls_cert_file, &args.tls_private_key_file) {
        (Some(cert), Some(key)) => {
            let read = |p: &PathBuf| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
            Some(Arc::new(tls_config(&read(cert)?, &read(key)?)?))
        }
        _ => None,
    };
    let client = Client::try_default().await?;
    let version = match args.k8s_version {
        Some(version) => version,
        None => cluster_version(&client).await?,
    };
    tracing::info!("deciding as kube-apiserver {version} does");

    // Namespaces: a reflector keeps a store of them for namespaceSelectors.
    let (reader, writer) = reflector::store::<Namespace>();
    let namespaces = watcher(
        Api::<Namespace>::all(client.clone()),
        watcher::Config::default(),
    );
    let namespaces = reflector(writer, namespaces.default_backoff());
    tokio::spawn(namespaces.for_each(|event| async move {
        if let Err(e) = event {
            tracing::warn!("namespace watcher: {e} (retrying)");
        }
    }));

    let app = Arc::new(App::new(
        LiveDispatcher::new(version),
        Arc::new(StoreNamespaces::new(reader.clone())),
    ));
    // Configurations: each kind's watcher events are applied to the live dispatcher.
    let (validating_synced, validating_listed) = oneshot::channel();
    let validating = watcher(
        Api::<ValidatingWebhookConfiguration>::all(client.clone()),
        watcher::Config::default(),
    );
    tokio::spawn(follow(
        "ValidatingWebhookConfiguration",
        validating.default_backoff(),
        Arc::clone(&app),
        LiveDispatcher::apply_validating,
        validating_synced,
    ));
    let (mutating_synced, mutating_listed) = oneshot::channel();
    let mutating = watcher(
        Api::<MutatingWebhookConfiguration>::all(client),
        watcher::Config::default(),
    );
    tokio::spawn(follow(
        "MutatingWebhookConfiguration",
        mutating.default_backoff(),
        Arc::clone(&app),
        LiveDispatcher::apply_mutating,
        mutating_synced,
    ));

    // Ready once the namespaces and both kinds are listed, as the apiserver waits for its
    // informers.
    let ready = Arc::clone(&app);
    let readiness = tokio::spawn(async move {
        let listed = tokio::try_join!(
            async { reader.wait_until_ready().await.map_err(BoxError::from) },
            async { validating_listed.await.map_err(BoxError::from) },
            async { mutating_listed.await.map_err(BoxError::from) },
        );
        match listed {
            Ok(_) => {
                let webhooks = ready.live.dispatcher().len();
                tracing::info!(webhooks, namespaces = reader.len(), "listed: ready");
                ready.set_ready(true);
            }
            Err(e) => tracing::error!("a watcher stopped before listing: {e}"),
        }
    });

    let listener = TcpListener::bind(args.listen)
        .await
        .map_err(|e| format!("{}: {e}", args.listen))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!("serving {scheme}://{}", listener.local_addr()?);
    let stopping = Arc::clone(&app);
    let shutdown = async move {
        signal().await;
        readiness.abort();
        stopping.set_ready(false);
        tracing::info!("shutting down: finishing the requests in flight");
    };
    serve(listener, tls, router(app), shutdown).await;
    Ok(())
}

/// The model for the cluster's version, warning when the cluster is newer than the
/// newest version modelled.
async fn cluster_version(client: &Client) -> Result<KubeVersion, BoxError> {
    let info = client.apiserver_version().await?;
    let version = KubeVersion::for_cluster(&info.git_version)?;
    if version.is_newer_than_modelled() {
        tracing::warn!(
            cluster = %info.git_version,
            model = %version.model,
            "the cluster is newer than the newest Kubernetes version modelled: \
             conditions using what it added fail to compile (pass --k8s-version to choose)"
        );
    }
    Ok(version.model)
}

/// Applies a watcher's events of one configuration kind, logging each configuration's
/// compile problems and watch errors (the stream retries with backoff); `synced` fires at
/// the first complete listing.
async fn follow<K>(
    kind: &'static str,
    events: impl Stream<Item = Result<Event<K>, watcher::Error>>,
    app: Arc<App>,
    apply: fn(&LiveDispatcher, Event<K>) -> Applied,
    synced: oneshot::Sender<()>,
) {
    let mut synced = Some(synced);
    let mut events = std::pin::pin!(events);
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!("{kind} watcher: {e} (retrying)");
                continue;
            }
        };
        let listed = matches!(event, Event::InitDone);
        let applied = apply(&app.live, event);
        for configuration in &applied.compiled {
            tracing::info!(configuration = %configuration.name, "{kind} compiled");
        }
        for configuration in applied.problems() {
            for problem in &configuration.problems {
                tracing::warn!(configuration = %configuration.name, "{kind}: {problem}");
            }
        }
        for name in &applied.removed {
            tracing::info!(configuration = %name, "{kind} removed");
        }
        if listed {
            if let Some(synced) = synced.take() {
                let _ = synced.send(());
            }
        }
    }
}

/// Completes at SIGTERM (as the kubelet stops a pod) or ctrl-c.
async fn signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot listen for ctrl-c: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(e) => {
                tracing::error!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
