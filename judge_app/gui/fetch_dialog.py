"""Lead ▸ Fetch results…: make a run from a live search engine (the ``fetch`` use case).

The dialog gathers the options: the engine, its search address, the request template (the
engine's default until edited), the depth, the run's name, the paths that differ from the
engine's defaults (shown as placeholders) and the variable holding the credentials (never the
credentials). The fetch runs off the UI thread with a progress dialog whose Cancel stops it
and stores nothing; the dialog then shows what was stored, or why not, and stays open.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from judge_app.commands.fetch import (
    AUTH_ENV,
    DEFAULT_TEMPLATES,
    FetchOptions,
    FetchSummary,
    fetch,
)
from judge_app.engines.fields import DEFAULT_PATHS, ENGINES, FIELDS
from judge_app.engines.template import RequestTemplate
from judge_app.errors import JudgeAppError
from judge_app.gui import preferences
from judge_app.gui.error_words import error_text
from judge_app.gui.lead_dialog import LeadDialog, TaskReports, field
from judge_app.gui.workers import Worker
from judge_app.gui.workspace import Workspace
from judge_app.options import names
from judge_app.web import public_url

ENGINE_TITLES = {
    "elasticsearch": "Elasticsearch",
    "opensearch": "OpenSearch",
    "solr": "Solr",
    "http": "Any JSON service over HTTP",
}
EXAMPLE_URLS = {
    "elasticsearch": "http://localhost:9200/INDEX/_search",
    "opensearch": "http://localhost:9200/INDEX/_search",
    "solr": "http://localhost:8983/solr/CORE/select",
    "http": "https://search.example.org/api/search",
}


class FetchDialog(LeadDialog):
    """The fetch's options, its template and the summary of its run; ``fetched`` carries
    the summary when a fetch ends (cancelled or not)."""

    fetched = Signal(object)

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "fetchDialog",
            "Fetch results",
            "Send every query through a request template to a live search engine and keep its "
            "top hits as a new run: a snapshot, so another day's fetch is another run to "
            "compare. Credentials come from the environment variable named here, never stored.",
            "Fetch",
        )
        self.setMinimumWidth(760)
        self.engine = QComboBox()
        self.engine.setObjectName("fetchEngine")
        for name in ENGINES:
            self.engine.addItem(ENGINE_TITLES[name], name)
        self.url = QLineEdit()
        self.url.setObjectName("fetchUrl")
        self.hits_per_query = QSpinBox()
        self.hits_per_query.setObjectName("fetchDepth")
        self.hits_per_query.setRange(1, 10_000)
        self.hits_per_query.setValue(FetchOptions.depth)
        self.hits_per_query.setToolTip("The hits kept of each answer ({depth} in the template)")
        self.run_name = QLineEdit()
        self.run_name.setObjectName("fetchRunName")
        self.run_name.setPlaceholderText("the engine and the time")
        self.queries = QLineEdit()
        self.queries.setObjectName("fetchQueries")
        self.queries.setPlaceholderText("all; or query ids: q1, q7")
        self.auth_env = QLineEdit(AUTH_ENV)
        self.auth_env.setObjectName("fetchAuthVariable")
        self.auth_env.setToolTip(
            "Its value is sent as the Authorization header ('ApiKey …', 'Bearer …'), or as "
            "Basic for user:password; it is never stored nor sent to another host"
        )
        self.rate = QDoubleSpinBox()
        self.rate.setObjectName("fetchRate")
        self.rate.setRange(0, 1000)
        self.rate.setDecimals(1)
        self.rate.setValue(FetchOptions.rate)
        self.rate.setSpecialValueText("no limit")
        self.rate.setSuffix(" a second")
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        # (label, field, row, column, columns spanned): two fields a row, the address alone
        places: tuple[tuple[str, QWidget, int, int, int], ...] = (
            ("&Engine", self.engine, 0, 0, 1),
            ("&Hits a query", self.hits_per_query, 0, 2, 1),
            ("Search &address", self.url, 1, 0, 3),
            ("&Run name", self.run_name, 2, 0, 1),
            ("&Queries", self.queries, 2, 2, 1),
            ("Requests at &most", self.rate, 3, 0, 1),
            ("&Credentials variable", self.auth_env, 3, 2, 1),
        )
        for text, widget, row, column, span in places:
            label = field(text)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            label.setBuddy(widget)
            grid.addWidget(label, row, column)
            grid.addWidget(widget, row, column + 1, 1, span)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.body.addLayout(grid)

        caption = field("Where the answer keeps each field (JMESPath; empty: the engine's default)")
        self.body.addWidget(caption)
        paths = QGridLayout()
        paths.setHorizontalSpacing(8)
        paths.setVerticalSpacing(6)
        self.paths: dict[str, QLineEdit] = {}
        for index, name in enumerate(FIELDS):
            edit = QLineEdit()
            edit.setObjectName(f"fetchPath_{name}")
            label = field(name)
            label.setBuddy(edit)
            paths.addWidget(label, index // 3, (index % 3) * 2)
            paths.addWidget(edit, index // 3, (index % 3) * 2 + 1)
            paths.setColumnStretch((index % 3) * 2 + 1, 1)
            self.paths[name] = edit
        self.body.addLayout(paths)

        heading = QHBoxLayout()
        template_caption = field("Request &template")
        reset = QPushButton("Reset to the engine's")
        reset.setObjectName("fetchResetTemplate")
        reset.setAutoDefault(False)
        reset.clicked.connect(self.reset_template)
        heading.addWidget(template_caption, 1)
        heading.addWidget(reset)
        self.body.addLayout(heading)
        self.template = QPlainTextEdit()
        self.template.setObjectName("fetchTemplate")
        self.template.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.template.setTabChangesFocus(True)  # Tab leaves the editor, as in every field
        self.template.setMinimumHeight(80)
        template_caption.setBuddy(self.template)
        self.body.addWidget(self.template, 10)
        hint = QLabel(
            "The JSON body of each query: {query} and {query_id} inside quotes, {depth} as a "
            "number; for Solr, the JSON Request API (its params take q, qf, fl=*,score, rows…)."
        )
        hint.setObjectName("dialogText")
        hint.setWordWrap(True)
        self.body.addWidget(hint)
        self.summary = QLabel()
        self.summary.setObjectName("fetchSummary")
        self.summary.setWordWrap(True)
        self.summary.hide()
        self.body.addWidget(self.summary)
        self.finish_layout()
        self._shown_engine = ""
        self.engine.currentIndexChanged.connect(self._engine_chosen)
        self._engine_chosen()
        self._restore()
        room = self.screen().availableGeometry().size() * 0.92
        self.resize(self.sizeHint().boundedTo(room))

    @property
    def chosen_engine(self) -> str:
        return str(self.engine.currentData())

    def _engine_chosen(self) -> None:
        """The engine's example address, default paths and (unless edited) template."""
        engine = self.chosen_engine
        self.url.setPlaceholderText(EXAMPLE_URLS[engine])
        for name, edit in self.paths.items():
            edit.setPlaceholderText(DEFAULT_PATHS[engine][name])
        edited = self.template.toPlainText() != DEFAULT_TEMPLATES.get(self._shown_engine, "")
        if not edited or not self.template.toPlainText().strip():
            self.template.setPlainText(DEFAULT_TEMPLATES[engine])
        self._shown_engine = engine

    def reset_template(self) -> None:
        """Put the engine's default template back in the editor."""
        self.template.setPlainText(DEFAULT_TEMPLATES[self.chosen_engine])

    def options(self) -> FetchOptions:
        """The options the dialog shows, checked (a usage or template error says what is
        wrong)."""
        template = self.template.toPlainText()
        default = DEFAULT_TEMPLATES[self.chosen_engine]
        return FetchOptions(
            engine=self.chosen_engine,
            url=self.url.text().strip(),
            template=None if template == default else RequestTemplate(template, "The template"),
            queries=names(self.queries.text() or None, "queries", "query"),
            depth=self.hits_per_query.value(),
            run_name=self.run_name.text().strip() or None,
            fields={name: edit.text() for name, edit in self.paths.items() if edit.text().strip()},
            auth_env=self.auth_env.text().strip(),
            rate=self.rate.value(),
        ).checked()

    def _restore(self) -> None:
        """Show the engine and how it was asked as at the last fetch (those stored)."""
        kept = preferences.dialog_settings("fetch", preferences.FETCH_KEYS)
        if (index := self.engine.findData(kept.get("engine"))) >= 0:
            self.engine.setCurrentIndex(index)
        self.url.setText(kept.get("url", ""))
        self.auth_env.setText(kept.get("auth_env", AUTH_ENV))
        if "depth" in kept:
            self.hits_per_query.setValue(int(kept["depth"]))
        if "rate" in kept:
            self.rate.setValue(float(kept["rate"]))
        paths = json.loads(kept.get("paths", "{}"))
        for name, edit in self.paths.items():
            edit.setText(paths.get(name, ""))
        if kept.get("template"):
            self.template.setPlainText(kept["template"])

    def _remember(self, options: FetchOptions) -> None:
        """Keep the engine and how it was asked for the next fetch: no user, password or
        query of the address (where a credential could hide), nor the run's name."""
        edited = self.template.toPlainText()
        preferences.remember_dialog_settings(
            "fetch",
            {
                "engine": options.engine,
                "url": public_url(options.url),
                "depth": str(options.depth),
                "auth_env": options.auth_env,
                "rate": str(options.rate),
                "paths": json.dumps(options.fields),
                "template": "" if options.template is None else edited,
            },
        )

    def save(self) -> None:
        """Start the fetch off the UI thread; its progress dialog can cancel it."""
        try:
            options = self.options()
        except JudgeAppError as error:
            self.show_error(error_text(error))
            return
        self._remember(options)
        database = self.workspace.database
        if database is None or self.workspace.busy():
            return
        self.show_error("")
        self.summary.hide()
        handle = database.share()  # the work's own, should the window close its database
        step = f"asking {ENGINE_TITLES[options.engine]}"

        def work(worker: Worker) -> FetchSummary:
            said = TaskReports(worker, step)
            with handle:
                return fetch(
                    handle,
                    options,
                    progress=said.progress,
                    cancelled=said.cancelled,
                    retrying=said.retrying,
                )

        self.wait_for(self.workspace.run_task("Fetch results", work, cancellable=True))

    def _succeeded(self, result: object) -> None:
        assert isinstance(result, FetchSummary)
        self.summary.setText(result.sentence())
        self.summary.show()
        self.workspace.show_message(result.sentence().splitlines()[0])
        if result.run is not None:
            self.workspace.campaignChanged.emit()
        self.fetched.emit(result)

    def _failed(self, error: BaseException) -> None:
        self.show_error(f"Nothing was stored: {error_text(error)}")
