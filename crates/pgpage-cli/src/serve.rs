//! `pgpage serve`: the browser app, carried inside this binary, served on loopback. A single
//! file copied to a database server gives the whole inspector there, offline, reachable over
//! an SSH tunnel. The process answers GETs of its own files only: the files a user opens in
//! the app are read by the browser through its file picker and never reach this process.

use std::borrow::Cow;
use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use clap::Args;
use rust_embed::Embed;
use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

/// The built app (`vite build`'s dist/). Empty when the binary was built before it: `serve`
/// then says how to get one that carries it.
#[derive(Embed)]
#[folder = "../../dist/"]
#[allow_missing = true]
struct App;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: a free one, the default).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Open the app in the default browser once it is served.
    #[arg(long)]
    open: bool,
}

/// Request-serving threads: the wasm and PGlite's files are large, and one download should
/// not hold up the page's other requests.
const THREADS: usize = 4;

pub fn run(args: &ServeArgs) -> i32 {
    let Some(index) = App::get("index.html") else {
        eprintln!(
            "pgpage: error: this pgpage was built without the browser app (dist/ did not exist when it was compiled): build the app first (npm run build, or scripts/build.sh), then the CLI again"
        );
        return 2;
    };
    let Some(csp) = content_security_policy(&index.data) else {
        eprintln!("pgpage: error: the app carried inside this pgpage has no Content-Security-Policy in its index.html: it was not built by this repository's vite.config.ts");
        return 2;
    };
    let server = match Server::http(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port))) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!(
                "pgpage: error: could not listen on 127.0.0.1:{}: {e}",
                args.port
            );
            return 2;
        }
    };
    let Some(port) = server.server_addr().to_ip().map(|a| a.port()) else {
        eprintln!("pgpage: error: the server has no TCP address");
        return 2;
    };
    let url = format!("http://127.0.0.1:{port}/");
    // Said once, and not fatal when no one reads it (stdout closed): the server goes on.
    let _ = writeln!(
        io::stdout(),
        "pgpage {}: the browser app at {url}\n  served on this machine only (127.0.0.1); from another one: ssh -L {port}:127.0.0.1:{port} THIS_HOST, then open the same address there\n  files opened in the app stay in the browser: this process reads none of them. Ctrl-C stops it.",
        env!("CARGO_PKG_VERSION")
    );
    if args.open {
        open_browser(&url);
    }
    let hosts: Arc<[String]> =
        Arc::from([format!("127.0.0.1:{port}"), format!("localhost:{port}")]);
    let csp: Arc<str> = Arc::from(csp);
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let (server, hosts, csp) = (Arc::clone(&server), Arc::clone(&hosts), Arc::clone(&csp));
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    // A client gone mid-answer is its own business, not the server's.
                    let _ = answer(request, &hosts, &csp);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    0
}

/// The policy index.html carries in its `<meta http-equiv="Content-Security-Policy">`: sent as
/// a header too, so that every file served (the workers' scripts included) is held to it.
fn content_security_policy(html: &[u8]) -> Option<String> {
    let html = std::str::from_utf8(html).ok()?;
    let meta = html.find("http-equiv=\"Content-Security-Policy\"")?;
    let rest = html.get(meta..)?;
    let start = rest.find("content=\"")?.checked_add("content=\"".len())?;
    let value = rest.get(start..)?;
    let end = value.find('"')?;
    Some(value.get(..end)?.to_owned())
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn answer(request: Request, hosts: &[String], csp: &str) -> io::Result<()> {
    // A page of another site that a DNS name pointed at 127.0.0.1 sends its own Host: it gets
    // nothing (DNS rebinding).
    let host_ok = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Host"))
        .is_some_and(|h| {
            hosts
                .iter()
                .any(|ok| h.value.as_str().eq_ignore_ascii_case(ok))
        });
    if !host_ok {
        return request.respond(Response::from_string("unknown host\n").with_status_code(421));
    }
    // HEAD is answered as GET is: tiny_http sends its headers without the body.
    if !matches!(request.method(), Method::Get | Method::Head) {
        let r = Response::from_string("only GET and HEAD\n").with_status_code(405);
        let r = match header("Allow", "GET, HEAD") {
            Some(h) => r.with_header(h),
            None => r,
        };
        return request.respond(r);
    }
    let path = request.url().split(['?', '#']).next().unwrap_or("/");
    let name = match path.trim_start_matches('/') {
        "" => "index.html",
        p => p,
    };
    let Some(file) = App::get(name) else {
        return request.respond(Response::from_string("not found\n").with_status_code(404));
    };
    let mime = file.metadata.mimetype();
    // A web manifest and wasm by their registered types, whatever the guess; text in UTF-8,
    // as vite writes it.
    let mime: Cow<'_, str> = if name.ends_with(".webmanifest") {
        Cow::Borrowed("application/manifest+json")
    } else if name.ends_with(".wasm") {
        Cow::Borrowed("application/wasm")
    } else if mime.starts_with("text/")
        || mime == "application/javascript"
        || mime == "application/json"
    {
        Cow::Owned(format!("{mime}; charset=utf-8"))
    } else {
        Cow::Borrowed(mime)
    };
    // Hashed asset names never change content; the page, the service worker and the lists
    // they read must be asked for again.
    let cache = if name.starts_with("assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let body: Cow<'static, [u8]> = file.data;
    let len = body.len();
    // Its length said up front, never chunked: the browser shows a download's progress.
    let mut response = Response::new(
        StatusCode(200),
        Vec::new(),
        io::Cursor::new(body),
        Some(len),
        None,
    )
    .with_chunked_threshold(usize::MAX);
    for (name, value) in [
        ("Content-Type", mime.as_ref()),
        ("Content-Security-Policy", csp),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", cache),
    ] {
        if let Some(h) = header(name, value) {
            response.add_header(h);
        }
    }
    request.respond(response)
}

/// The system's way to open a URL; said, not fatal, when there is none.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!(
            "pgpage: warning: could not start a browser ({opener}: {e}): open {url} yourself"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_read_from_the_page_meta() {
        let html = br#"<head><meta http-equiv="Content-Security-Policy" content="default-src 'self'; object-src 'none'" /></head>"#;
        assert_eq!(
            content_security_policy(html).as_deref(),
            Some("default-src 'self'; object-src 'none'")
        );
        assert_eq!(content_security_policy(b"<head></head>"), None);
        assert_eq!(content_security_policy(&[0xff, 0xfe]), None);
    }
}
