function run_one(method, ds, datadir, outdir, srcdir, timesfile, seed)
% Run the authors' SFS-FI (OFSS_FI_mi.m) or OSSFS-DD (OSFS_DD_mi2.m), UNMODIFIED, on one data
% set. Writes OUTDIR/<ds>_<method>_selected.csv (1-based indices in the order returned,
% comma-separated, one line; an empty file when nothing is selected) and appends one line to
% TIMESFILE.
%   method : 'sfs_fi' (gamma = 0.01) or 'ossfs_dd' (sig1 = 1, sig2 = 2, PoolSize = 100)
%   datadir: holds <ds>_X.csv (n x p, no header) and <ds>_y.csv (n labels, 1 = minority, 0 = rest)
%   srcdir : the authors' files (OFSS_FI_mi.m, OSFS_DD_mi2.m, mi/SU.m, h.m, mi.m, cmi.m) and
%            fsengine's MIToolboxMex.m in place of the compiled MEX file
%   seed   : rand('state', seed) is called just before the call (neither method draws random
%            numbers: the times file says so, drew_random=0)
  if nargin < 7, seed = 0; end
  warning('off', 'all');
  addpath(srcdir);
  X = dlmread(fullfile(datadir, [ds '_X.csv']), ',');
  y = dlmread(fullfile(datadir, [ds '_y.csv']));
  y = y(:);
  [n, p] = size(X);
  rand('state', seed);
  s0 = rand('state');
  c0 = cputime;
  t0 = tic;
  switch method
    case 'sfs_fi'
      [sel, tin] = OFSS_FI_mi(X, y, 0.01);
      call = 'OFSS_FI_mi(X, y, 0.01)';
    case 'ossfs_dd'
      [sel, tin] = OSFS_DD_mi2(X, y, 1, 2, 100);
      call = 'OSFS_DD_mi2(X, y, 1, 2, 100)';
    otherwise
      error('unknown method %s', method);
  end
  wall = toc(t0);
  cpu = cputime - c0;
  drew = ~isequal(s0, rand('state'));
  sel = full(sel(:)');
  f = fopen(fullfile(outdir, sprintf('%s_%s_selected.csv', ds, method)), 'w');
  if ~isempty(sel)
    txt = sprintf('%d,', sel);
    fprintf(f, '%s\n', txt(1:end-1));
  end
  fclose(f);
  f = fopen(timesfile, 'a');
  fprintf(f, '%s %d x %d  %s %s drew_random=%d  time=%.3f s (own timer %.3f s, cpu %.3f s)  n_selected=%d  selected(1-based)=[%s]\n', ...
          ds, n, p, method, call, drew, wall, tin, cpu, numel(sel), strtrim(sprintf('%d ', sel)));
  fclose(f);
  printf('%s %s: %d selected, %.3f s\n', ds, method, numel(sel), wall);
end
