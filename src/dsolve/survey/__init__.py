"""Surveys: a job (Klondike solves, grades for race tables, Crapette rounds) run over a seed range,
chunk by chunk, into a directory of Parquet files that resumes after any stop.

- :mod:`.jobs`: what a survey makes of each seed under each setting, for any game;
- :mod:`.store`: the directory, its manifest and chunk files, read back checked;
- :mod:`.executors`: local worker processes or a Dask cluster;
- :mod:`.run`: running and resuming a survey, retrying its unknown rows;
- :mod:`.options`, :mod:`.progress`: what a run is told, and what it shows;
- :mod:`.stats`: the statistics of Klondike solve surveys.
"""
from .jobs import JOBS, Job, Task, job_of
from .options import DEFAULT_LIMITS, DEFAULT_TIMEOUT, Limits, parse_seeds, parse_timeout
from .run import RetryRun, SurveyRun, retry_unknown, run_survey
from .store import Chunk, DamagedChunk, Manifest, RunTime, Survey, load, open_survey

__all__ = ["JOBS", "Job", "Task", "job_of", "DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "Limits", "parse_seeds",
           "parse_timeout", "RetryRun", "SurveyRun", "retry_unknown", "run_survey", "Chunk", "DamagedChunk",
           "Manifest", "RunTime", "Survey", "load", "open_survey"]
