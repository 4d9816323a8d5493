//! Database records (access/rmgrdesc/dbasedesc.c; commands/dbcommands_xlog.h): 15 split
//! CREATE into CREATE_FILE_COPY and CREATE_WAL_LOG and renumbered DROP.

use alloc::format;
use alloc::string::String;

use super::{count, Body, Desc, WalRecord};

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    let (file_copy, wal_log, drop) = if version >= 15 {
        (0x00, Some(0x10), 0x20)
    } else {
        (0x00, None, 0x10)
    };
    Some(if info == file_copy {
        let b = Body::main(rec, "xl_dbase_create_file_copy_rec");
        (|| {
            Ok(format!(
                "copy dir {}/{} to {}/{}",
                b.u32(12, "src_tablespace_id")?,
                b.u32(8, "src_db_id")?,
                b.u32(4, "tablespace_id")?,
                b.u32(0, "db_id")?
            ))
        })()
    } else if Some(info) == wal_log {
        let b = Body::main(rec, "xl_dbase_create_wal_log_rec");
        (|| {
            Ok(format!(
                "create dir {}/{}",
                b.u32(4, "tablespace_id")?,
                b.u32(0, "db_id")?
            ))
        })()
    } else if info == drop {
        let b = Body::main(rec, "xl_dbase_drop_rec");
        (|| {
            let db = b.u32(0, "db_id")?;
            let n = count(b.i32(4, "ntablespaces")?, "ntablespaces")?;
            let ids = b.array(8, n, 4, "tablespace_ids")?;
            let mut s = String::from("dir");
            for i in 0..n {
                s.push_str(&format!(
                    " {}/{db}",
                    ids.u32(i.saturating_mul(4), "tablespace_ids")?
                ));
            }
            Ok(s)
        })()
    } else {
        Ok(String::new())
    })
}
