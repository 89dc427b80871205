/// The detail sections of the report: speakers, sentences, word diff, normalised texts and the method.
extension HTMLReport {
    func speakerSection() -> String {
        guard result.diarization != nil || result.permutationWER != nil else { return "" }
        var body = "<div class=\"scroll\"><table id=\"speaker-table\"><tbody>\n"
        if let d = result.diarization {
            body +=
                "<tr><td>DER (collar ± \(HTMLText.fixed(d.collar, decimals: 2)) s per boundary)</td><td class=\"num\">\(HTMLText.percent(d.errorRate))</td></tr>\n"
            body +=
                "<tr><td>Scored speaker time</td><td class=\"num\">\(HTMLText.seconds(d.scoredSpeakerTime))</td></tr>\n"
            body += "<tr><td>Missed speech</td><td class=\"num\">\(HTMLText.seconds(d.missedSpeech))</td></tr>\n"
            body += "<tr><td>False alarm</td><td class=\"num\">\(HTMLText.seconds(d.falseAlarm))</td></tr>\n"
            body +=
                "<tr><td>Speaker confusion</td><td class=\"num\">\(HTMLText.seconds(d.speakerConfusion))</td></tr>\n"
            for key in d.mapping.keys.sorted() {
                body += "<tr><td>Reference \(HTMLText.escape(key)) →</td><td class=\"num\">"
                body += "\(HTMLText.escape(d.mapping[key]!))</td></tr>\n"
            }
        }
        if let p = result.permutationWER {
            body += "<tr><td>cpWER</td><td class=\"num\">\(HTMLText.percent(p.errorRate))</td></tr>\n"
            body += "<tr><td>cpWER errors (S / D / I)</td><td class=\"num\">\(p.counts.substitutions) / "
            body += "\(p.counts.deletions) / \(p.counts.insertions)</td></tr>\n"
        }
        body += "</tbody></table></div>"
        return section("speakers", "Speakers", body)
    }

    func sentenceSection() -> String {
        var body = ""
        let merged = result.documents.flatMap(\.sentences).filter { $0.status == .merged }
        if !merged.isEmpty {
            let lines = merged.reduce(0) { $0 + $1.referenceLines.count }
            body += "<p id=\"merged-note\"><span class=\"badge merged\">merged</span> The recogniser returned "
            body += "\(lines) reference lines inside \(merged.count) segment group(s). A segment is never split, so "
            body += "those lines are scored together in one row instead of being counted as missed.</p>\n"
        }
        for document in result.documents {
            if result.documents.count > 1 { body += "<h3>\(HTMLText.escape(document.name))</h3>\n" }
            body += "<div class=\"scroll\"><table class=\"sentences\"><thead><tr><th>Line</th><th>Status</th>"
            body += "<th>Reference</th><th>Recognised</th><th class=\"num\">S</th><th class=\"num\">D</th>"
            body += "<th class=\"num\">I</th><th class=\"num\">WER</th></tr></thead><tbody>\n"
            for row in document.sentences {
                let lineLabel =
                    row.referenceLines.isEmpty ? "—" : row.referenceLines.map { String($0 + 1) }.joined(separator: ", ")
                body += "<tr class=\"\(row.status.rawValue)\"><td class=\"num\">\(lineLabel)</td>"
                body += "<td><span class=\"badge \(row.status.rawValue)\">\(row.status.rawValue)</span></td>"
                body += "<td>\(row.referenceText.map(HTMLText.escape).joined(separator: "<br>"))</td>"
                body += "<td>\(row.hypothesisText.map(HTMLText.escape).joined(separator: "<br>"))</td>"
                body +=
                    "<td class=\"num\">\(row.counts.substitutions)</td><td class=\"num\">\(row.counts.deletions)</td>"
                body += "<td class=\"num\">\(row.counts.insertions)</td>"
                body += "<td class=\"num\">\(HTMLText.percent(row.counts.errorRate))</td></tr>\n"
            }
            body += "</tbody></table></div>\n"
        }
        return section("sentences", "Per-sentence comparison", body)
    }

    static let legend = """
        <div class="legend" id="legend">\
        <span><span class="sub"><span class="sym">≠</span><span class="was">reference</span> recognised</span> \
        substitution (red, wavy underline, reference struck)</span>\
        <span><del class="del"><span class="sym">−</span>word</del> deletion (green, struck through, “−”)</span>\
        <span><ins class="ins"><span class="sym">+</span>word</ins> insertion (yellow, double underline, “+”)</span>\
        <span>plain word = correct</span></div>
        """

    func diffSection() -> String {
        var body = Self.legend + "\n"
        for document in result.documents {
            if result.documents.count > 1 { body += "<h3>\(HTMLText.escape(document.name))</h3>\n" }
            body += "<p class=\"diff\">"
            for token in document.diff {
                let reference = HTMLText.escape(token.reference ?? "")
                let hypothesis = HTMLText.escape(token.hypothesis ?? "")
                switch token.operation {
                case .match:
                    body += "<span>\(reference)</span> "
                case .substitution:
                    body += "<span class=\"sub\" title=\"reference: \(reference)\"><span class=\"sym\">≠</span>"
                    body += "<span class=\"was\">\(reference)</span> \(hypothesis)</span> "
                case .deletion:
                    body += "<del class=\"del\"><span class=\"sym\">−</span>\(reference)</del> "
                case .insertion:
                    body += "<ins class=\"ins\"><span class=\"sym\">+</span>\(hypothesis)</ins> "
                }
            }
            body += "</p>\n"
        }
        return section("diff", "Full-text word comparison", body)
    }

    func normalizedSection() -> String {
        var body = ""
        for document in result.documents {
            body += "<details><summary>\(HTMLText.escape(document.name))</summary>\n"
            body +=
                "<p class=\"muted\">Reference (normalised)</p><pre>\(HTMLText.escape(document.normalizedReference))</pre>\n"
            body +=
                "<p class=\"muted\">Recognised (normalised)</p><pre>\(HTMLText.escape(document.normalizedHypothesis))</pre>\n"
            body += "</details>\n"
        }
        return section("normalized", "Normalised texts", body)
    }

    func methodSection() -> String {
        let body = """
            <p>Both texts are first normalised with the rules listed under <a href="#conditions">Test conditions</a> \
            (for example lowercase, punctuation replaced by spaces, full-width forms made half-width, Chinese split \
            into single characters while ASCII words and numbers stay whole, fillers removed, thousands separators \
            removed, numbers written as digits). The normalised word sequences are aligned with the Levenshtein \
            edit distance (every edit costs 1), which yields H hits, S substitutions, D deletions and I insertions.</p>
            <ul>
            <li><b>WER</b> = (S + D + I) / N with N = H + S + D reference words; <b>accuracy</b> = 1 − WER (it can \
            be negative when the recogniser adds many words).</li>
            <li><b>CER</b> is the same formula on characters (the normalised tokens joined by single spaces, no \
            space between two Chinese characters).</li>
            <li><b>MER</b> = (S + D + I) / (H + S + D + I).</li>
            <li>Totals add the counts of all documents before dividing. An empty reference counts as N = 1 for its \
            own WER, so every inserted word there is one error.</li>
            <li>The <b>per-sentence</b> table assigns each recognised segment, whole, to the reference line where \
            most of its aligned words fall; lines the recogniser merged into one segment are flagged \
            <span class="badge merged">merged</span> and scored together. The full-text WER above is the \
            authoritative number; row figures are for orientation.</li>
            <li><b>DER</b> = (missed speech + false alarm + speaker confusion) / reference speaker time, with a \
            no-score collar around reference boundaries and the speaker mapping that maximises overlap. \
            <b>cpWER</b> concatenates each speaker's words and pairs speakers to minimise the word errors.</li>
            <li><b>Real-time factor</b> = recognition time / audio duration (below 1 is faster than real time).</li>
            </ul>
            """
        return section("method", "How the numbers are computed", body)
    }
}
