extension HTMLReport {
    /// The `live` section of a live replay: streamed vs offline WER, the latency percentiles, per-file WERs.
    func liveSection() -> String {
        guard let live = result.live else { return "" }
        func latency(_ summary: LiveFigures.Summary?, _ q: KeyPath<LiveFigures.Summary, Double>) -> String {
            summary.map { HTMLText.seconds($0[keyPath: q]) } ?? "none"
        }
        let cards = [
            kpi("Streamed WER", HTMLText.percent(live.streamedWordErrorRate), id: "streamed-wer"),
            kpi("Offline WER", HTMLText.percent(live.offlineWordErrorRate), id: "offline-wer"),
            kpi("Streamed − offline", HTMLText.fixed(live.werDifference * 100, decimals: 2) + " pt", id: "wer-gap"),
            kpi("First partial p50", latency(live.firstPartial, \.p50), id: "partial-p50"),
            kpi("First partial p95", latency(live.firstPartial, \.p95), id: "partial-p95"),
            kpi("Final p50", latency(live.final, \.p50), id: "final-p50"),
            kpi("Final p95", latency(live.final, \.p95), id: "final-p95"),
        ]
        let rows = live.documents.map {
            "<tr><td>\(HTMLText.escape($0.name))</td><td class=\"num\">\(HTMLText.percent($0.streamedWordErrorRate))"
                + "</td><td class=\"num\">\(HTMLText.percent($0.offlineWordErrorRate))</td></tr>"
        }
        let pace = live.speed == 1 ? "real-time pace" : "\(HTMLText.fixed(live.speed, decimals: 1))× real time"
        let body = """
            <div class="kpis">
            \(cards.joined(separator: "\n"))
            </div>
            <div class="scroll"><table id="live-table"><thead><tr><th>File</th><th class="num">Streamed WER</th>\
            <th class="num">Offline WER</th></tr></thead><tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table></div>
            <p class="muted">Each file replayed through the live session at \(pace) in 100 ms chunks with server VAD; \
            \(live.utterances.count) utterance(s), \(live.firstPartial?.count ?? 0) with a partial before the final. \
            First partial: from the speech start the VAD heard to the first partial text; final: from the speech end \
            to the final text, in wall seconds (at real-time pace, what a user waits).</p>
            """
        return section("live", "Live replay: streamed vs offline", body)
    }
}
