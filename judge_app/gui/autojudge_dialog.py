"""Lead ▸ Automatic judge…: grade the pooled pairs with an LLM (the ``autojudge`` use case) or
the local model (``autojudge_local``).

The dialog gathers the options (the endpoint, model and key variable are remembered, never
the key); the work runs off the UI thread with a progress dialog whose Cancel stops asking
and keeps what was answered; the dialog then shows the run's summary and stays open.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from judge_app.automatic_judges.llm import public_url
from judge_app.automatic_judges.prompt import DEFAULT_TEMPLATE, PLACEHOLDERS
from judge_app.commands.autojudge import (
    API_KEY_ENV,
    AutojudgeOptions,
    AutojudgeSummary,
    autojudge,
)
from judge_app.commands.autojudge_local import LocalJudgeOptions, LocalReport, autojudge_local
from judge_app.errors import UsageError
from judge_app.gui import preferences
from judge_app.gui.error_words import error_text
from judge_app.gui.lead_dialog import LeadDialog, TaskReports
from judge_app.gui.workers import Worker
from judge_app.gui.workspace import Workspace

DEFAULT_ENDPOINT = "http://localhost:11434/v1"
"""Ollama's, the usual first local server."""


class AutojudgeDialog(LeadDialog):
    """The automatic judge's options, its prompt template, and the summary of its run;
    ``judged`` carries the summary when a run ends (cancelled or not)."""

    judged = Signal(object)

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(
            workspace,
            "autojudgeDialog",
            "Automatic judge",
            "An LLM grades every pooled pair on the rubric, over the chat-completions protocol "
            "of Ollama, vLLM, llama.cpp, LM Studio or a hosted service; or a local model, "
            "learned from the raters' grades, grades them without a server. Its grades are "
            "kept apart from the raters': no rater sees them and agreement never counts them. "
            "A pair an LLM graded with the same prompt is not asked again. The API key is "
            "read from the environment variable named here and never stored.",
            "Start",
        )
        self.setMinimumWidth(760)
        remembered = preferences.dialog_settings("autojudge", preferences.AUTOJUDGE_KEYS)
        self.endpoint = self._line(
            "autojudgeEndpoint", remembered.get("endpoint", DEFAULT_ENDPOINT)
        )
        self.model = self._line("autojudgeModel", remembered.get("model", ""))
        self.model.setPlaceholderText("qwen2.5:7b-instruct")
        self.name = self._line("autojudgeName", "")
        self.name.setPlaceholderText("the model's name")
        self.api_key_env = self._line(
            "autojudgeKeyVariable", remembered.get("api_key_env", API_KEY_ENV)
        )
        self.concurrency = QSpinBox()
        self.concurrency.setObjectName("autojudgeConcurrency")
        self.concurrency.setRange(0, 64)
        self.concurrency.setSpecialValueText("auto")
        self.concurrency.setValue(AutojudgeOptions.concurrency or 0)
        self.concurrency.setToolTip(
            "auto: as many as the server says it works on at once (llama.cpp), else 1 for a "
            "server on this machine and 4 for one elsewhere"
        )
        self.limit = QSpinBox()
        self.limit.setObjectName("autojudgeLimit")
        self.limit.setRange(0, 10_000_000)
        self.limit.setSpecialValueText("all")
        self.limit.setToolTip("Only the first N pairs of the pool (all: every pair)")
        self.max_tokens = QSpinBox()
        self.max_tokens.setObjectName("autojudgeMaxTokens")
        self.max_tokens.setRange(16, 100_000)
        self.max_tokens.setValue(AutojudgeOptions.max_tokens)
        self.max_tokens.setToolTip("The most tokens an answer may take: a rambling one is cut")
        self.probes = QSpinBox()
        self.probes.setObjectName("autojudgeProbes")
        self.probes.setRange(0, 10_000)
        self.probes.setValue(AutojudgeOptions.probes)
        self.probes.setSpecialValueText("none")
        self.probes.setToolTip(
            "Pairs asked again with instructions injected into the document, the query's words "
            "stuffed into it and the prompt worded otherwise (3 requests each): the Automatic "
            "judges page shows how far these move the judge"
        )
        self.structured = QCheckBox("Answers as JSON, enforced by the server where it can")
        self.structured.setObjectName("autojudgeStructured")
        self.structured.setChecked(AutojudgeOptions.structured)
        self.structured.setToolTip(
            "A reason and the final score as a JSON object; unchecked: free text, read after "
            'its last "Final score:"'
        )
        self.retry_failed = QCheckBox("Ask again the pairs whose answer failed")
        self.retry_failed.setObjectName("autojudgeRetryFailed")
        self.retry_failed.setToolTip(
            "Unchecked, a failed answer is kept: at temperature 0 a model fails the same way"
        )
        self.with_llm = QRadioButton("An LLM at an endpoint")
        self.with_llm.setObjectName("autojudgeWithLlm")
        self.with_llm.setChecked(True)
        self.with_local = QRadioButton(
            "A local model learned from the raters' grades (no server, no download)"
        )
        self.with_local.setObjectName("autojudgeWithLocal")
        choice = QHBoxLayout()
        choice.addWidget(self.with_llm)
        choice.addWidget(self.with_local, 1)
        self.body.addLayout(choice)
        self.with_local.toggled.connect(self._method_chosen)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        rows = (
            ("Endpoint (base URL)", self.endpoint),
            ("Model", self.model),
            ("Judge's name", self.name),
            ("API key variable", self.api_key_env),
            ("Requests at once", self.concurrency),
            ("Pairs", self.limit),
            ("Longest answer (tokens)", self.max_tokens),
            ("Pairs probed", self.probes),
        )
        for row, (text, widget) in enumerate(rows):
            label = QLabel(text)
            label.setObjectName("fieldLabel")
            label.setBuddy(widget)
            grid.addWidget(label, row, 0)
            grid.addWidget(widget, row, 1)
        grid.addWidget(self.structured, len(rows), 1)
        grid.addWidget(self.retry_failed, len(rows) + 1, 1)
        grid.setColumnStretch(1, 1)
        self.body.addLayout(grid)

        heading = QHBoxLayout()
        caption = QLabel("Prompt template")
        caption.setObjectName("fieldLabel")
        reset = QPushButton("Reset to default")
        reset.setObjectName("autojudgeResetTemplate")
        reset.setAutoDefault(False)
        reset.clicked.connect(self.reset_template)
        heading.addWidget(caption, 1)
        heading.addWidget(reset)
        self.llm_only: list[QWidget] = [
            self.endpoint, self.model, self.api_key_env, self.concurrency, self.limit,
            self.max_tokens, self.probes, self.structured, self.retry_failed, reset,
        ]  # fmt: skip
        self.body.addLayout(heading)
        self.template = QPlainTextEdit(DEFAULT_TEMPLATE)
        self.template.setObjectName("autojudgeTemplate")
        self.template.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.template.setMinimumHeight(90)  # more where the screen has room (stretch)
        self.body.addWidget(self.template, 10)  # the room left goes to it, not to the gap
        self.llm_only.append(self.template)
        hint = QLabel(
            "[system], [user] and [assistant] lines start the messages. Placeholders: "
            + ", ".join("{" + name + "}" for name in PLACEHOLDERS)
            + "; write {{ and }} for braces."
        )
        hint.setObjectName("dialogText")
        hint.setToolTip(
            "Turns before the last [user] are examples (a pair and the answer wanted); an "
            "[assistant] after it starts the model's answer, which is read with it."
        )
        hint.setWordWrap(True)
        self.body.addWidget(hint)
        self.summary = QLabel()
        self.summary.setObjectName("autojudgeSummary")
        self.summary.setWordWrap(True)
        self.summary.hide()
        self.body.addWidget(self.summary)
        self.finish_layout()
        # at the size of its content (opened smaller, its lines were drawn over the editor),
        # within the screen: the template editor gives up its height first
        room = self.screen().availableGeometry().size() * 0.92
        self.resize(self.sizeHint().boundedTo(room))

    @staticmethod
    def _line(name: str, text: str) -> QLineEdit:
        edit = QLineEdit(text)
        edit.setObjectName(name)
        return edit

    def _method_chosen(self, local: bool) -> None:
        """The LLM's fields only for an LLM."""
        for widget in self.llm_only:
            widget.setEnabled(not local)
        self.name.setPlaceholderText("local model" if local else "the model's name")

    def reset_template(self) -> None:
        """Put the default template back in the editor."""
        self.template.setPlainText(DEFAULT_TEMPLATE)

    def options(self) -> AutojudgeOptions | LocalJudgeOptions:
        """The options the dialog shows, an LLM judge's or the local judge's, checked (a usage
        error names what is wrong)."""
        if self.with_local.isChecked():
            return LocalJudgeOptions(name=self.name.text().strip() or None).checked()
        template = self.template.toPlainText()
        return AutojudgeOptions(
            endpoint=self.endpoint.text().strip(),
            model=self.model.text().strip(),
            name=self.name.text().strip() or None,
            api_key_env=self.api_key_env.text().strip(),
            template=None if template == DEFAULT_TEMPLATE else template,
            limit=self.limit.value() or None,
            concurrency=self.concurrency.value() or None,
            max_tokens=self.max_tokens.value(),
            structured=self.structured.isChecked(),
            retry_failed=self.retry_failed.isChecked(),
            probes=self.probes.value(),
        ).checked()

    def save(self) -> None:
        """Start the run off the UI thread; its progress dialog can cancel it."""
        try:
            options = self.options()
        except UsageError as error:
            self.show_error(error_text(error))
            return
        database = self.workspace.database
        if database is None or self.workspace.busy():
            return
        if isinstance(options, AutojudgeOptions):
            preferences.remember_dialog_settings(
                "autojudge",
                {
                    # no user, password or query, where a key could hide: never in the settings
                    "endpoint": public_url(options.endpoint) if options.endpoint else "",
                    "model": options.model or "",
                    "api_key_env": options.api_key_env,
                },
            )
        self.show_error("")
        self.summary.hide()
        handle = database.share()  # the work's own, should the window close its database
        if isinstance(options, LocalJudgeOptions):
            step = "learning from the raters' grades"
        else:
            step = f"asking {options.model}"

        def work(worker: Worker) -> AutojudgeSummary | LocalReport:
            said = TaskReports(worker, step)
            with handle:
                if isinstance(options, LocalJudgeOptions):
                    return autojudge_local(
                        handle, options, progress=said.progress, cancelled=said.cancelled
                    )
                return autojudge(
                    handle,
                    options,
                    progress=said.progress,
                    cancelled=said.cancelled,
                    retrying=said.retrying,
                )

        self.wait_for(self.workspace.run_task("Automatic judge", work, cancellable=True))

    def _succeeded(self, result: object) -> None:
        assert isinstance(result, (AutojudgeSummary, LocalReport))
        self.summary.setText(result.sentence())
        self.summary.show()
        self.workspace.show_message(result.sentence().splitlines()[0])
        self.judged.emit(result)

    def _failed(self, error: BaseException) -> None:
        self.show_error(f"Stopped (the answers received are kept): {error_text(error)}")
