//! `pgpage generate`: the completion scripts and the man page come from the parser's own
//! definition, so each names every subcommand `pgpage --help` lists, bash accepts its script,
//! and man renders the page.

use std::process::Command;

use crate::common::pgpage;

fn stdout(args: &[&str]) -> String {
    let out = pgpage(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands as `pgpage --help` lists them.
fn subcommands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let list = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .to_owned();
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn completions_and_man_page() {
    let names = subcommands();
    assert!(names.len() >= 12, "{names:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["generate", shell]);
        for n in &names {
            assert!(script.contains(n.as_str()), "{shell} lacks {n}");
        }
    }
    // bash takes the script and registers it for pgpage.
    let bin = env!("CARGO_BIN_EXE_pgpage");
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("source <({bin} generate bash) && complete -p pgpage"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("pgpage"));

    let page = stdout(&["generate", "man"]);
    let version = stdout(&["--version"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH pgpage 1"),
        "{page}"
    );
    assert!(
        page.contains(version.trim()),
        "the man page names the build"
    );
    let file = std::env::temp_dir().join(format!("pgpage-{}.1", std::process::id()));
    std::fs::write(&file, &page).unwrap();
    let out = Command::new("man")
        .env("MANWIDTH", "80")
        .args(["-l", file.to_str().unwrap()])
        .output();
    std::fs::remove_file(&file).ok();
    // man is not on every machine the tests run on; where it is, it renders the page.
    if let Ok(out) = out {
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            text.contains("SUBCOMMANDS") && text.contains("pgpage-report"),
            "{text}"
        );
    }

    // A kind it does not know is a usage error.
    assert_eq!(pgpage(&["generate", "tcsh"]).status.code(), Some(2));
}
