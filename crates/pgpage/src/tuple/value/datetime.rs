//! Dates and times as PostgreSQL prints them with DateStyle ISO, TimeZone UTC and
//! IntervalStyle postgres (utils/adt/datetime.c EncodeDateOnly, EncodeDateTime,
//! EncodeTimeOnly, EncodeInterval; j2date and timestamp2tm from date.c/timestamp.c).

use alloc::string::String;
use core::fmt::Write;

use super::push_uint;

const POSTGRES_EPOCH_JDATE: i64 = 2_451_545;
const USECS_PER_SEC: i64 = 1_000_000;
const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;

/// datetime.c j2date: a Julian day to (year, month, day), in its unsigned arithmetic.
fn j2date(jd: i64) -> (i64, u32, u32) {
    let mut julian = (jd as u32).wrapping_add(32044);
    let mut quad = julian / 146_097;
    let extra = julian
        .wrapping_sub(quad.wrapping_mul(146_097))
        .wrapping_mul(4)
        .wrapping_add(3);
    julian = julian
        .wrapping_add(60)
        .wrapping_add(quad.wrapping_mul(3))
        .wrapping_add(extra / 146_097);
    quad = julian / 1461;
    julian = julian.wrapping_sub(quad.wrapping_mul(1461));
    let mut y = julian.wrapping_mul(4) / 1461;
    julian = if y != 0 {
        julian.wrapping_add(305) % 365
    } else {
        julian.wrapping_add(306) % 366
    }
    .wrapping_add(123);
    y = y.wrapping_add(quad.wrapping_mul(4));
    let year = i64::from(y as i32).wrapping_sub(4800);
    let quad = julian.wrapping_mul(2141) / 65536;
    let day = julian.wrapping_sub(quad.wrapping_mul(7834) / 256);
    let month = (quad.wrapping_add(10) % 12).wrapping_add(1);
    (year, month, day)
}

/// EncodeDateOnly's year: BC years count down from 1 BC = year 0.
fn push_ymd(out: &mut String, year: i64) -> bool {
    let shown = if year > 0 {
        year
    } else {
        1i64.wrapping_sub(year)
    };
    push_uint(out, shown.unsigned_abs(), 4);
    year <= 0
}

/// "-MM-DD" after the year.
fn push_month_day(out: &mut String, m: u32, d: u32) {
    out.push('-');
    push_uint(out, u64::from(m), 2);
    out.push('-');
    push_uint(out, u64::from(d), 2);
}

/// `{:02}` of a signed number, as `write!` prints it: the sign counts in the width.
fn push_signed(out: &mut String, v: i64, width: usize) {
    if v < 0 {
        out.push('-');
        push_uint(out, v.unsigned_abs(), width.saturating_sub(1));
    } else {
        push_uint(out, v.unsigned_abs(), width);
    }
}

/// date_out: "YYYY-MM-DD", " BC", "infinity", "-infinity".
pub fn date(days: i32, out: &mut String) {
    match days {
        i32::MIN => out.push_str("-infinity"),
        i32::MAX => out.push_str("infinity"),
        _ => {
            let (y, m, d) = j2date(i64::from(days).wrapping_add(POSTGRES_EPOCH_JDATE));
            let bc = push_ymd(out, y);
            push_month_day(out, m, d);
            if bc {
                out.push_str(" BC");
            }
        }
    }
}

/// AppendSeconds with MAX_TIMESTAMP_PRECISION: "SS" and the fraction without trailing zeros.
fn push_seconds(out: &mut String, sec: i64, fsec: i64) {
    push_uint(out, sec.unsigned_abs(), 2);
    if fsec != 0 {
        let mut f = fsec.unsigned_abs();
        let mut width = 6usize;
        while f.is_multiple_of(10) {
            f /= 10;
            width = width.saturating_sub(1);
        }
        out.push('.');
        push_uint(out, f, width);
    }
}

fn push_time_of_day(out: &mut String, t: i64) {
    let hour = t / USECS_PER_HOUR;
    let t = t % USECS_PER_HOUR;
    let min = t / USECS_PER_MINUTE;
    let t = t % USECS_PER_MINUTE;
    push_signed(out, hour, 2);
    out.push(':');
    push_signed(out, min, 2);
    out.push(':');
    push_seconds(out, t / USECS_PER_SEC, t % USECS_PER_SEC);
}

/// time_out: microseconds since midnight.
pub fn time(usecs: i64, out: &mut String) {
    push_time_of_day(out, usecs);
}

/// EncodeTimezone: seconds west of UTC as "+HH", "+HH:MM" or "+HH:MM:SS".
fn push_zone(out: &mut String, tz: i32) {
    let a = tz.unsigned_abs();
    let (hour, min, sec) = (a / 3600, (a / 60) % 60, a % 60);
    out.push(if tz <= 0 { '+' } else { '-' });
    let _ = write!(out, "{hour:02}");
    if sec != 0 {
        let _ = write!(out, ":{min:02}:{sec:02}");
    } else if min != 0 {
        let _ = write!(out, ":{min:02}");
    }
}

/// timetz_out: a time and its zone (seconds west of UTC).
pub fn timetz(usecs: i64, zone: i32, out: &mut String) {
    push_time_of_day(out, usecs);
    push_zone(out, zone);
}

/// timestamp_out / timestamptz_out under TimeZone=UTC ("+00" after the time).
pub fn timestamp(usecs: i64, with_zone: bool, out: &mut String) {
    match usecs {
        i64::MIN => return out.push_str("-infinity"),
        i64::MAX => return out.push_str("infinity"),
        _ => {}
    }
    // timestamp2tm: TMODULO then a negative time of day borrows a day.
    let mut date = usecs / USECS_PER_DAY;
    let mut t = usecs % USECS_PER_DAY;
    if t < 0 {
        t = t.wrapping_add(USECS_PER_DAY);
        date = date.wrapping_sub(1);
    }
    let (y, m, d) = j2date(date.wrapping_add(POSTGRES_EPOCH_JDATE));
    let bc = push_ymd(out, y);
    push_month_day(out, m, d);
    out.push(' ');
    push_time_of_day(out, t);
    if with_zone {
        out.push_str("+00");
    }
    if bc {
        out.push_str(" BC");
    }
}

/// AddPostgresIntPart.
fn int_part(out: &mut String, value: i64, units: &str, is_zero: &mut bool, is_before: &mut bool) {
    if value == 0 {
        return;
    }
    if !*is_zero {
        out.push(' ');
    }
    if *is_before && value > 0 {
        out.push('+');
    }
    let _ = write!(out, "{value} {units}");
    if value != 1 {
        out.push('s');
    }
    *is_before = value < 0;
    *is_zero = false;
}

/// interval_out with IntervalStyle postgres (EncodeInterval INTSTYLE_POSTGRES), including
/// PostgreSQL 17's infinite intervals.
pub fn interval(usecs: i64, days: i32, months: i32, out: &mut String) {
    if usecs == i64::MAX && days == i32::MAX && months == i32::MAX {
        return out.push_str("infinity");
    }
    if usecs == i64::MIN && days == i32::MIN && months == i32::MIN {
        return out.push_str("-infinity");
    }
    let (year, mon) = (i64::from(months / 12), i64::from(months % 12));
    let hour = usecs / USECS_PER_HOUR;
    let t = usecs % USECS_PER_HOUR;
    let min = t / USECS_PER_MINUTE;
    let t = t % USECS_PER_MINUTE;
    let (sec, fsec) = (t / USECS_PER_SEC, t % USECS_PER_SEC);
    let mut is_zero = true;
    let mut is_before = false;
    int_part(out, year, "year", &mut is_zero, &mut is_before);
    int_part(out, mon, "mon", &mut is_zero, &mut is_before);
    int_part(out, i64::from(days), "day", &mut is_zero, &mut is_before);
    if is_zero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
        let minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
        if !is_zero {
            out.push(' ');
        }
        if minus {
            out.push('-');
        } else if is_before {
            out.push('+');
        }
        let _ = write!(out, "{:02}:{:02}:", hour.unsigned_abs(), min.unsigned_abs());
        push_seconds(out, sec, fsec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut String)) -> String {
        let mut o = String::new();
        f(&mut o);
        o
    }

    // Expected strings: PostgreSQL's output for the same values (DateStyle ISO, UTC).
    #[test]
    fn dates_and_timestamps() {
        assert_eq!(s(|o| date(0, o)), "2000-01-01");
        assert_eq!(s(|o| date(-730_485, o)), "0001-01-01 BC");
        assert_eq!(s(|o| date(-730_120, o)), "0001-12-31 BC");
        assert_eq!(s(|o| date(8766, o)), "2024-01-01");
        assert_eq!(
            s(|o| timestamp(757_479_845_123_456, true, o)),
            "2024-01-02 03:04:05.123456+00"
        );
        assert_eq!(s(|o| timestamp(-1, false, o)), "1999-12-31 23:59:59.999999");
        assert_eq!(s(|o| time(45_296_500_000, o)), "12:34:56.5");
        assert_eq!(s(|o| timetz(0, -19800, o)), "00:00:00+05:30");
    }

    #[test]
    fn intervals_postgres_style() {
        assert_eq!(s(|o| interval(0, 0, 0, o)), "00:00:00");
        assert_eq!(
            s(|o| interval(14_706_000_000, 3, 14, o)),
            "1 year 2 mons 3 days 04:05:06"
        );
        assert_eq!(
            s(|o| interval(7_380_000_000, -1, 0, o)),
            "-1 days +02:03:00"
        );
        assert_eq!(s(|o| interval(-1_500_000, 0, 0, o)), "-00:00:01.5");
    }
}
