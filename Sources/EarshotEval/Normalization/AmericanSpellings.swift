/// British → American spellings (`colour` → `color`) for ``NormalizationRule/americanSpelling``.
///
/// The pairs are the resource `american-spellings.txt` next to this file, embedded at build time
/// (`.embedInCode` in Package.swift, so nothing is read from disk at run time) and written by
/// `scripts/make-spelling-table` from Whisper's `english.json` (MIT License, Copyright (c) 2022 OpenAI).
enum AmericanSpellings {
    /// British spelling → American spelling, parsed once on first use. Thread-safe (a `static let`).
    static let table: [Substring: Substring] = parse(
        String(decoding: PackageResources.american_spellings_txt, as: UTF8.self))

    /// Parses `british american` lines; blank lines and lines starting with `#` are skipped.
    static func parse(_ text: String) -> [Substring: Substring] {
        var map = [Substring: Substring]()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.firstIndex(of: " ") else { continue }
            map[line[..<space]] = line[line.index(after: space)...]
        }
        return map
    }
}
