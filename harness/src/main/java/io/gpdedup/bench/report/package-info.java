/**
 * What every gpdedup-bench runner outputs, and the {@code report} command that gathers it:
 * <ul>
 * <li>{@link io.gpdedup.bench.report.ResultTable}: {@code new ResultTable(title, cols...).add(cells...)},
 *     {@code print(System.out)}, {@code toMarkdown()}.</li>
 * <li>{@link io.gpdedup.bench.report.RunFiles}: {@code RunFiles.in(outDir)}, then
 *     {@code table(name, t)} (= {@code csv} + {@code json}), {@code json(name, anyValue)},
 *     {@code file(name)} for a path inside it; {@code readCsv(path)}.</li>
 * <li>{@link io.gpdedup.bench.report.Charts}: {@code line(png, title, xTitle, yTitle, List<Series>)}
 *     for per-second timelines, {@code bars(png, title, xTitle, yTitle, categories, groups)} for
 *     thread/host/jobs sweeps.</li>
 * <li>{@link io.gpdedup.bench.report.Progress}: {@code Progress.start(task, total)} or
 *     {@code Progress.bytes(task, totalBytes)} on stderr, {@code step(n)}, {@code message(text)},
 *     {@code close()}; {@code Progress.quiet()} draws nothing.</li>
 * <li>{@link io.gpdedup.bench.report.ReportCommand}: {@code gpdedup-bench report DIR} writes
 *     DIR/report.md from every CSV (as a table) and PNG (as an image) in DIR; a {@code run.json}
 *     with "title", "command" and "notes" keys, if present, heads the page.</li>
 * </ul>
 */
package io.gpdedup.bench.report;
