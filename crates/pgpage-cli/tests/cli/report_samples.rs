//! The report of relation files given alone, outside a data directory: the app's samples
//! (public/samples), whose damaged blocks are in four files, three of them with a block 1.
//! Its steps name every block with its file, give each command once, and name each copy a
//! later command goes on from with its file.
use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn steps_name_each_block_with_its_file_and_each_command_once() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/samples");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "manifest.json")
        .map(|n| format!("samples/{n}"))
        .collect();
    files.sort();
    // Named as the app names them: a folder samples/ beside the report.
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(dir, root.path().join("samples")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .arg("report")
        .args(&files)
        .current_dir(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("pgpage "))
        .collect();
    let fpi: Vec<&&str> = commands
        .iter()
        .filter(|c| c.starts_with("pgpage fpi"))
        .collect();
    assert_eq!(fpi.len(), 4, "{text}");
    assert_eq!(
        fpi.iter().collect::<BTreeSet<_>>().len(),
        fpi.len(),
        "a command given twice:\n{text}"
    );
    assert!(
        fpi.iter()
            .any(|c| c.starts_with("pgpage fpi --relation DB/90002 ")),
        "{text}"
    );
    // The flipped block is named with its file: samples/16427.2 and samples/90004 have a
    // block 1 too.
    assert!(
        text.contains("For block 1 of samples/90001, only if no flip above is the damage"),
        "{text}"
    );
    assert!(!text.contains("For block 1,"), "{text}");
    assert!(
        text.contains("ways past the pages it refuses (blocks 262144, 262145, 262146 and 262147 of samples/16427.2; block 1 of samples/90001; blocks 1 and 2 of samples/90004)"),
        "{text}"
    );
    assert!(
        text.contains("ways past the pages it refuses (blocks 262144, 262145, 262146 and 262147 of samples/16427.2; block 1 of samples/90001; blocks 1 and 2 of samples/90004)"),
        "{text}"
    );
    // Each copy a command goes on from is one file's.
    let placeholders: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("NEW_OF_BLOCK_"))
        .filter_map(|l| l.split_once(':').map(|(p, _)| p))
        .collect();
    assert_eq!(
        placeholders.iter().collect::<BTreeSet<_>>().len(),
        placeholders.len(),
        "{text}"
    );
    for p in &placeholders {
        let line = text
            .lines()
            .find(|l| l.trim().starts_with(&format!("{p}:")))
            .unwrap();
        assert!(line.contains(" of samples/"), "{line}");
    }
}
