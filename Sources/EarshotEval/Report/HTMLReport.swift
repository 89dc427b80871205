/// The single-file HTML report of an ``EvaluationResult``.
///
/// Self-contained (inline CSS and SVG, no script, no external resource), light and dark mode through
/// `prefers-color-scheme`, readable on a phone. Sections, each with an `id`: `kpis`, `live` (a live replay),
/// `composition`, `conditions`, `speakers` (when scored), `sentences`, `diff`, `normalized`, `method`. Every piece of text
/// that comes from the inputs is HTML-escaped, so a transcript containing `<script>` shows as text.
public struct HTMLReport: Sendable {
    /// The result to render.
    public let result: EvaluationResult

    /// Creates a report for `result`.
    public init(result: EvaluationResult) {
        self.result = result
    }

    /// The complete HTML document.
    public func render() -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="\(result.normalization.language.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(HTMLText.escape(result.title))</title>
            <style>\(ReportStyle.css)</style>
            </head>
            <body><main>
            <header><h1>\(HTMLText.escape(result.title))</h1>
            <p class="muted">\(result.documents.count) document(s) · normalisation: \
            \(result.normalization.language.rawValue) · full-text WER is the authoritative number</p></header>

            """
        html += kpiSection()
        html += liveSection()
        html += compositionSection()
        html += conditionsSection()
        html += speakerSection()
        html += sentenceSection()
        html += diffSection()
        html += normalizedSection()
        html += methodSection()
        html += "</main></body>\n</html>\n"
        return html
    }

    func section(_ id: String, _ title: String, _ body: String) -> String {
        "<section id=\"\(id)\">\n<h2>\(HTMLText.escape(title))</h2>\n\(body)\n</section>\n"
    }

    func kpi(_ label: String, _ value: String, id: String) -> String {
        "<div class=\"kpi\" id=\"kpi-\(id)\"><div class=\"label\">\(HTMLText.escape(label))</div>"
            + "<div class=\"value\">\(HTMLText.escape(value))</div></div>"
    }

    func kpiSection() -> String {
        let words = result.words
        var cards = [
            kpi("Accuracy", HTMLText.percent(result.accuracy), id: "accuracy"),
            kpi("WER", HTMLText.percent(result.wordErrorRate), id: "wer"),
            kpi("CER", HTMLText.percent(result.characterErrorRate), id: "cer"),
            kpi(
                result.normalization.rules.contains(.splitCJKCharacters) && result.normalization.language == .chinese
                    ? "Reference tokens" : "Reference words", String(words.referenceLength), id: "reference-words"),
            kpi("Total errors", String(words.errors), id: "errors"),
        ]
        if let timing = result.timing {
            cards.append(kpi("Elapsed", HTMLText.seconds(timing.elapsedSeconds), id: "elapsed"))
            cards.append(
                kpi("Real-time factor", timing.realTimeFactor.map { HTMLText.fixed($0, decimals: 3) } ?? "—", id: "rtf")
            )
        } else {
            cards.append(kpi("Elapsed", "not measured", id: "elapsed"))
        }
        if let diarization = result.diarization {
            cards.append(kpi("DER", HTMLText.percent(diarization.errorRate), id: "der"))
        }
        if let permutation = result.permutationWER {
            cards.append(kpi("cpWER", HTMLText.percent(permutation.errorRate), id: "cpwer"))
        }
        return section("kpis", "Overview", "<div class=\"kpis\">\n" + cards.joined(separator: "\n") + "\n</div>")
    }

    func compositionSection() -> String {
        let w = result.words
        let parts: [(String, String, Int, String)] = [
            ("Substitutions", "sub", w.substitutions, "S"), ("Deletions", "del", w.deletions, "D"),
            ("Insertions", "ins", w.insertions, "I"),
        ]
        let largest = max(parts.map(\.2).max() ?? 0, 1)
        var svg = "<svg role=\"img\" aria-label=\"Error composition: "
        svg += parts.map { "\($0.0) \($0.2)" }.joined(separator: ", ")
        svg += "\" viewBox=\"0 0 360 96\" width=\"100%\" style=\"max-width:480px\">"
        let colours = ["var(--sub)", "var(--del)", "var(--ins)"]
        for (index, part) in parts.enumerated() {
            let y = 4 + index * 30
            let width = Int((Double(part.2) / Double(largest) * 220).rounded())
            svg += "<text x=\"0\" y=\"\(y + 17)\">\(part.3) · \(part.0)</text>"
            svg += "<rect x=\"110\" y=\"\(y + 4)\" width=\"\(max(width, 1))\" height=\"18\" rx=\"3\" "
            svg += "style=\"fill:\(colours[index])\"/>"
            svg += "<text x=\"\(116 + width)\" y=\"\(y + 17)\">\(part.2)</text>"
        }
        svg += "</svg>"
        let table = """
            <div class="scroll"><table id="composition-table"><thead><tr><th>Kind</th><th class="num">Count</th>\
            <th class="num">Share of errors</th></tr></thead><tbody>
            \(parts.map { part in
                "<tr><td>\(part.0) (\(part.3))</td><td class=\"num\">\(part.2)</td>"
                    + "<td class=\"num\">\(HTMLText.percent(Double(part.2) / Double(max(w.errors, 1))))</td></tr>"
            }.joined(separator: "\n"))
            <tr><td>Hits (H)</td><td class="num">\(w.hits)</td><td class="num">—</td></tr>
            <tr><td>Reference words N = H + S + D</td><td class="num">\(w.referenceLength)</td><td class="num">—</td></tr>
            <tr><td>Hypothesis words H + S + I</td><td class="num">\(w.hypothesisLength)</td><td class="num">—</td></tr>
            </tbody></table></div>
            <p class="muted">MER \(HTMLText.percent(result.matchErrorRate)) · characters: \
            \(result.characters.referenceLength) reference, \(result.characters.errors) errors \
            (S \(result.characters.substitutions), D \(result.characters.deletions), \
            I \(result.characters.insertions))</p>
            """
        return section("composition", "Error composition", svg + "\n" + table)
    }

    func conditionsSection() -> String {
        let c = result.conditions
        var rows: [(String, String)] = [
            ("Model", c.model ?? "not given"), ("Audio format", c.audioFormat ?? "not given"),
            ("Machine", c.machine ?? "not given"),
        ]
        for key in c.settings.keys.sorted() { rows.append((key, c.settings[key]!)) }
        let rules = NormalizationRule.allCases.filter(result.normalization.rules.contains).map(\.rawValue)
        rows.append(
            ("Normalisation rules", rules.isEmpty ? "none (whitespace split only)" : rules.joined(separator: ", ")))
        if result.normalization.rules.contains(.removeFillers) {
            rows.append(("Fillers removed", result.normalization.fillers.sorted().joined(separator: " ")))
        }
        let body =
            "<dl class=\"conditions\">\n"
            + rows.map { "<dt>\(HTMLText.escape($0.0))</dt><dd>\(HTMLText.escape($0.1))</dd>" }.joined(separator: "\n")
            + "\n</dl>"
        return section("conditions", "Test conditions", body)
    }
}
