//! `pgpage generate KIND`: the shell completion scripts and the man page, made from the same
//! command-line definition the parser uses (clap_complete, clap_mangen), as ripgrep's
//! `--generate` and hexyl's `--completion` give them, so packagers install them from the
//! binary itself and they never fall behind its options.

use std::io::Write;

use clap::{CommandFactory, ValueEnum};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kind {
    /// The man page (roff), for `man -l` or a man directory as pgpage.1.
    Man,
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
}

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// What to print on stdout
    #[arg(value_enum)]
    pub kind: Kind,
}

pub fn run<C: CommandFactory>(args: &GenerateArgs) -> i32 {
    let mut cmd = C::command();
    let mut out: Vec<u8> = Vec::new();
    let shell = match args.kind {
        Kind::Man => {
            if let Err(e) = clap_mangen::Man::new(cmd.clone()).render(&mut out) {
                eprintln!("pgpage: error: could not render the man page: {e}");
                return 2;
            }
            None
        }
        Kind::Bash => Some(clap_complete::Shell::Bash),
        Kind::Zsh => Some(clap_complete::Shell::Zsh),
        Kind::Fish => Some(clap_complete::Shell::Fish),
        Kind::Powershell => Some(clap_complete::Shell::PowerShell),
        Kind::Elvish => Some(clap_complete::Shell::Elvish),
    };
    if let Some(shell) = shell {
        clap_complete::generate(shell, &mut cmd, "pgpage", &mut out);
    }
    match std::io::stdout().lock().write_all(&out) {
        Ok(()) => 0,
        // A closed pipe (`| head`) is the reader's choice, not a failure to report.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("pgpage: error: could not write to stdout: {e}");
            2
        }
    }
}
